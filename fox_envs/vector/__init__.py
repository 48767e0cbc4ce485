"""Vector envs: processes stepping Gymnasium views (``FoxVectorEnv``), the batched core's
``BatchVectorEnv``, and ``gymnasium.make_vec``'s routing between them."""
