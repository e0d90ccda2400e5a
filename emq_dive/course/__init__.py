"""The course data: the lessons (the course's and the user's), read and checked, and the sandbox's edited batches."""
