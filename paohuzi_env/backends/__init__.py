"""The two engines behind one protocol: the Python reference and the compiled core."""
