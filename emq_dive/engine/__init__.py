"""The engine, free of any view: the protocol (echo_mq), the stores, the step engine, the fates, the C module."""
