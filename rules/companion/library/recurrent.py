"""Recurrent and unfolding layers that take torch's constructor arguments."""
