"""The EchoMQ lease protocol in Python: key names, scripts, the connector and the verbs."""
