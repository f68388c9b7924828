"""Encoders over the engine: observations, the critic's state, wait features, rewards."""
