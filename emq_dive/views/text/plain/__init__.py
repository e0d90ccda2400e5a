"""The plain line mode, for screen readers: every learner move as a typed command, said line by line."""
