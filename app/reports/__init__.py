"""Report rendering: template contexts and Jinja environments."""
