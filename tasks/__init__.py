"""The Luigi layer: thin tasks over the library (filled by the pipeline work)."""
