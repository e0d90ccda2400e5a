"""The views, which only render the presentation model: the terminal UI, the text modes and the browser."""
