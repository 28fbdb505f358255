"""Code the agent's tools share, whichever side of the swap runs them."""
