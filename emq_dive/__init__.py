"""emq-dive: an interactive terminal simulator for the EchoMQ job-queue course."""

__version__ = "0.1.0"
