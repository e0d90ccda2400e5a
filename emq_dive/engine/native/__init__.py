"""The native twin on a real server: the EMQ module's C source and its builder."""
