"""Vector files: loading, checking against the schemas, streaming, formatting."""
