"""Running the server: ``serve``, ``status``, ``demo`` and the embedded mail stack."""
