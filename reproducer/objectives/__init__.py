"""Training objectives, one module per paper; the maths is a function of embeddings or logits."""
