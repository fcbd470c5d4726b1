# Sourced by the launch scripts in scripts/ (never run on its own).
# Boxes: 8x A100-80G, 2x EPYC 7763 (128 cores).

export NCCL_ASYNC_ERROR_HANDLING=1
export TOKENIZERS_PARALLELISM=false

# DeepSpeedCPUAdam is an OpenMP loop: give each rank its own share of the cores,
# otherwise every rank starts a team as large as the machine.
configure_host() {
    local ranks=${1:-8}
    local cores
    cores=$(nproc)
    export OMP_NUM_THREADS=$(( cores / ranks ))
    echo "OMP_NUM_THREADS=${OMP_NUM_THREADS} for ${ranks} ranks on ${cores} cores"
}
