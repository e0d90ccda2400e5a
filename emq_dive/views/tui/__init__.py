"""The terminal UI: the Textual app, its screens and its widgets (one widget a module)."""
