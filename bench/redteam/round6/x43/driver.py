import socket

import ray

from workers import TrainWorker


def free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    ray.init()
    n = 4
    addr = ray.util.get_node_ip_address()
    port = free_port()
    workers = [TrainWorker.remote(r, n, addr, port) for r in range(n)]
    for _ in range(100):
        print(ray.get([w.step.remote() for w in workers]))
