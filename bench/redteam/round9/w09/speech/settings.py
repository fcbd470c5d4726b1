from pydantic_settings import BaseSettings, SettingsConfigDict


class TrainSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="KWS_", env_file=".env")

    manifest: str = "data/train_manifest.pt"
    epochs: int = 40
    batch_size: int = 128
    lr: float = 5e-4
    num_workers: int = 4
    log_every: int = 50
