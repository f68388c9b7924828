"""Adapters: the PettingZoo AEC environment, Gymnasium wrappers, RLlib."""
