"""The dive without the full-screen UI: a Markdown transcript of a run, and a plain line mode for screen readers."""
