from .dist import is_main


def maybe_save(engine, step, every=1000):
    if step % every != 0:
        return
    if not is_main():
        return
    engine.save_checkpoint("checkpoints", tag=f"step{step}")
    print(f"saved step {step}")
