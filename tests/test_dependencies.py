"""Framework versions a project pins, and the DSL502 finding that depends on Lightning's."""
from __future__ import annotations

from dslint.facts.dependencies import newest_allowed

SAVE_ON_RANK_ZERO = """import pytorch_lightning as pl


def on_interrupt(trainer: pl.Trainer, path):
    if trainer.global_rank == 0:
        trainer.save_checkpoint(path)


def main(model):
    trainer = pl.Trainer(accelerator="gpu", devices=4, strategy="ddp")
    trainer.fit(model)
"""


def test_exact_pins_in_conda_and_pip_files(tmp_path):
    (tmp_path / "environment.yaml").write_text("dependencies:\n  - python=3.8\n  - pip:\n    - pytorch-lightning==1.4.2\n")
    assert newest_allowed(tmp_path, "lightning") == (1, 4, 2)


def test_an_upper_bound_allows_only_releases_below_it(tmp_path):
    (tmp_path / "requirements.txt").write_text("torch>=2.0\nlightning>=2.0,<2.1\n")
    assert newest_allowed(tmp_path, "lightning") < (2, 1)
    assert newest_allowed(tmp_path, "lightning") > (2, 0)


def test_no_pin_and_other_packages_say_nothing(tmp_path):
    (tmp_path / "requirements.txt").write_text("lightning-bolts==0.7.0\nlightning>=2.2\ntorch==2.3.0\n")
    assert newest_allowed(tmp_path, "lightning") is None


def test_rank_zero_save_checkpoint_hangs_only_from_lightning_2_1(project):
    project.write({"main.py": SAVE_ON_RANK_ZERO})
    assert "DSL502" in project.codes()
    project.write({"environment.yaml": "dependencies:\n  - pip:\n    - pytorch-lightning==1.4.2\n"})
    assert "DSL502" not in project.codes()
    project.write({"environment.yaml": "dependencies:\n  - pip:\n    - lightning==2.4.0\n"})
    assert "DSL502" in project.codes()


def test_wildcard_and_compatible_release_pins_allow_their_whole_series(tmp_path):
    (tmp_path / "requirements.txt").write_text("pytorch-lightning==2.*\n")
    assert newest_allowed(tmp_path, "lightning") > (2, 9)
    (tmp_path / "requirements.txt").write_text("pytorch-lightning~=1.9\n")
    assert (1, 9) < newest_allowed(tmp_path, "lightning") < (2, 0)


def test_cached_project_findings_follow_a_dependency_file_that_changes(project):
    """The project phase reads requirements.txt, which is no checked file: a warm run must see it change."""
    from dslint import engine
    from dslint.settings import Settings

    project.write({"main.py": SAVE_ON_RANK_ZERO})

    def warm_codes():
        return [f.code for f in engine.check([str(project.root)], Settings(), root=project.root).findings]

    assert "DSL502" in warm_codes()
    project.write({"requirements.txt": "pytorch-lightning==1.4.2\n"})
    assert "DSL502" not in warm_codes()
    (project.root / "requirements.txt").unlink()
    assert "DSL502" in warm_codes()


def test_pins_in_a_requirements_folder(tmp_path, project):
    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements" / "pt2.txt").write_text("torch>=2.0\npytorch-lightning==2.0.1\n")
    assert newest_allowed(tmp_path, "lightning") == (2, 0, 1)
    project.write({"main.py": SAVE_ON_RANK_ZERO, "requirements/pt2.txt": "pytorch-lightning==2.0.1\n"})
    assert "DSL502" not in project.codes()
