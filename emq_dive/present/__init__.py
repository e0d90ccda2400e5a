"""The presentation model: the session's frames, the words of a step, the keys, free of any view."""
