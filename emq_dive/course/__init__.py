"""The course data: the lessons (the course's and the user's), the fate table and the sandbox's edited batches."""
