"""A lane waits for a flag that another lane of its warp sets: `python examples/spin_wait.py`.

It completes under independent thread scheduling (Volta and later) and hangs
under the pre-Volta SIMT stack, where warpsim reports the hang instead.
"""

import warpsim

SOURCE = r"""
extern "C" __global__ void spin_wait(volatile int* flag, int* out) {
    int lane = threadIdx.x % 32;
    if (lane == 0) {
        while (*flag == 0) { }
        out[0] = 1;
    }
    if (lane == 1) *flag = 1;
}
"""

if __name__ == "__main__":
    kernel = warpsim.RawModule(code=SOURCE).get_function("spin_wait")
    for model in ("its", "stack"):
        flag, out = warpsim.zeros(1, dtype=warpsim.int32), warpsim.zeros(1, dtype=warpsim.int32)
        try:
            with warpsim.settings(scheduling=model):
                kernel((1,), (32,), (flag, out))
            print(f"{model}: completed, out[0] = {int(out.get()[0])}")
        except warpsim.DeadlockError as exc:
            print(f"{model}: {exc}")
