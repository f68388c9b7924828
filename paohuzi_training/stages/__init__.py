"""The stages of a training recipe, each a module: the search's labels (:mod:`.label`),
behaviour cloning (:mod:`.clone`), distillation (:mod:`.distill`), PPO (:mod:`.ppo`, with its
rollouts, workers, batches, league and housekeeping), the final evaluation (:mod:`.evaluate`) and
the export (:mod:`.export`). :mod:`paohuzi_training.recipe` runs them."""
