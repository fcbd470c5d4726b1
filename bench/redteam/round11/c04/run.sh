#!/usr/bin/env bash
# Fine-tune GPT-2 on the support-ticket corpus, one worker per GPU on this box.
set -euo pipefail
python finetune.py --corpus data/support_tickets.txt --gpus 4 --epochs 3 --out runs/gpt2-tickets
