"""The Judge page's settings, view models and cached calls (METHODS 15)."""
