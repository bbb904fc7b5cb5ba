"""Load: read files as text and turn each template format into one in-memory shape."""
