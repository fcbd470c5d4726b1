import argparse
import json

import evaluate


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pred", required=True)
    args = parser.parse_args()
    with open(args.pred) as f:
        rows = [json.loads(line) for line in f]
    rouge = evaluate.load("rouge")
    print(rouge.compute(predictions=[r["pred"] for r in rows], references=[r["ref"] for r in rows]))


if __name__ == "__main__":
    main()
