"""The shared rules core, generic AEC env, Gymnasium view and registry."""
