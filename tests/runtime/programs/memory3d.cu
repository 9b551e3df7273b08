// 3D memory: cudaMalloc3D, cudaMemcpy3D (host <-> device, device to device, sub-boxes, CUDA
// arrays), cudaMemset3D, cudaMemcpy3DAsync, a 3D texture over a cudaMalloc3DArray, the 2D array
// copies (async and array to array), cudaGetChannelDesc and cudaArrayGetInfo, and refused calls.
// Usage: memory3d volume.bin W H D out.bin   (volume: D x H x W floats; out.bin: every result, in order)
#include <cstdio>
#include <cstring>
#include <vector>
#include "io.h"

#define SAY(name, call) printf("%s %s\n", name, cudaGetErrorName(call))

__global__ void scale_slices(cudaPitchedPtr volume, int w, int h, int d) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x >= w || y >= h || z >= d) return;
  char *slice = (char *)volume.ptr + (size_t)z * volume.pitch * volume.ysize;
  float *row = (float *)(slice + (size_t)y * volume.pitch);
  row[x] = row[x] * 2.0f + z;
}

__global__ void fetch3d(cudaTextureObject_t tex, float *out, int w, int h, int d) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x < w) out[((size_t)z * h + y) * w + x] = tex3D<float>(tex, x + 0.5f, y + 0.5f, z + 0.5f);
}

int main(int argc, char **argv) {
  if (argc != 6) return 2;
  std::vector<float> volume = read_file<float>(argv[1]);
  int W = atoi(argv[2]), H = atoi(argv[3]), D = atoi(argv[4]);
  std::vector<float> out;
  auto keep = [&](const float *p, size_t n) { out.insert(out.end(), p, p + n); };

  cudaExtent extent = make_cudaExtent(W * sizeof(float), H, D);
  cudaPitchedPtr dev;
  CHECK(cudaMalloc3D(&dev, extent));
  printf("malloc3d pitch %zu xsize %zu ysize %zu\n", dev.pitch, dev.xsize, dev.ysize);

  cudaMemcpy3DParms up = {0};
  up.srcPtr = make_cudaPitchedPtr(volume.data(), W * sizeof(float), W, H);
  up.dstPtr = dev;
  up.extent = extent;
  up.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&up));
  scale_slices<<<dim3((W + 31) / 32, H, D), 32>>>(dev, W, H, D);
  CHECK(cudaGetLastError());

  // 1. the whole volume back, packed
  std::vector<float> full(W * H * D);
  cudaMemcpy3DParms down = {0};
  down.srcPtr = dev;
  down.dstPtr = make_cudaPitchedPtr(full.data(), W * sizeof(float), W, H);
  down.extent = extent;
  down.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&down));
  keep(full.data(), full.size());

  // 2. a sub-box (x 3.., y 2.., z 1.., 5 x 4 x 2) into a host buffer with a wider pitch
  const int bw = 5, bh = 4, bd = 2, hostPitch = 8;
  std::vector<float> box(hostPitch * bh * bd, -1.0f);
  cudaMemcpy3DParms sub = {0};
  sub.srcPtr = dev;
  sub.srcPos = make_cudaPos(3 * sizeof(float), 2, 1);
  sub.dstPtr = make_cudaPitchedPtr(box.data(), hostPitch * sizeof(float), hostPitch, bh);
  sub.extent = make_cudaExtent(bw * sizeof(float), bh, bd);
  sub.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&sub));
  keep(box.data(), box.size());

  // 3. device to device, on a stream, into a second volume at an offset
  cudaPitchedPtr other;
  CHECK(cudaMalloc3D(&other, extent));
  CHECK(cudaMemset3D(other, 0, extent));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cudaMemcpy3DParms d2d = {0};
  d2d.srcPtr = dev;
  d2d.dstPtr = other;
  d2d.dstPos = make_cudaPos(1 * sizeof(float), 1, 1);
  d2d.extent = make_cudaExtent((W - 1) * sizeof(float), H - 1, D - 1);
  d2d.kind = cudaMemcpyDeviceToDevice;
  CHECK(cudaMemcpy3DAsync(&d2d, stream));
  CHECK(cudaStreamSynchronize(stream));
  down.srcPtr = other;
  CHECK(cudaMemcpy3D(&down));
  keep(full.data(), full.size());

  // 4. cudaMemset3D over a box of the first volume (bytes 0x3f: 0.747059f)
  cudaPitchedPtr corner = dev;
  corner.ptr = (char *)dev.ptr + 1 * dev.pitch * dev.ysize + 1 * dev.pitch + 2 * sizeof(float);
  CHECK(cudaMemset3DAsync(corner, 0x3f, make_cudaExtent(3 * sizeof(float), 2, D - 1), stream));
  down.srcPtr = dev;
  CHECK(cudaMemcpy3D(&down));
  keep(full.data(), full.size());

  // 5. a 3D CUDA array: filled from the device volume, read by tex3D, a box copied out of it
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t array;
  CHECK(cudaMalloc3DArray(&array, &desc, make_cudaExtent(W, H, D), cudaArraySurfaceLoadStore));
  cudaMemcpy3DParms toArray = {0};
  toArray.srcPtr = dev;
  toArray.dstArray = array;
  toArray.extent = make_cudaExtent(W, H, D);           // elements of the array
  toArray.kind = cudaMemcpyDeviceToDevice;
  CHECK(cudaMemcpy3D(&toArray));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc td = {};
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex;
  CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
  float *fetched;
  CHECK(cudaMalloc(&fetched, full.size() * sizeof(float)));
  fetch3d<<<dim3((W + 31) / 32, H, D), 32>>>(tex, fetched, W, H, D);
  CHECK(cudaMemcpy(full.data(), fetched, full.size() * sizeof(float), cudaMemcpyDeviceToHost));
  keep(full.data(), full.size());
  std::vector<float> arrayBox(bw * bh * bd);
  cudaMemcpy3DParms fromArray = {0};
  fromArray.srcArray = array;
  fromArray.srcPos = make_cudaPos(3, 2, 1);             // elements
  fromArray.dstPtr = make_cudaPitchedPtr(arrayBox.data(), bw * sizeof(float), bw, bh);
  fromArray.extent = make_cudaExtent(bw, bh, bd);
  fromArray.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&fromArray));
  keep(arrayBox.data(), arrayBox.size());

  cudaChannelFormatDesc got;
  CHECK(cudaGetChannelDesc(&got, array));
  printf("channel desc %d %d %d %d %d\n", got.x, got.y, got.z, got.w, (int)got.f);
  cudaExtent shape;
  unsigned int flags = 99;
  CHECK(cudaArrayGetInfo(&got, &shape, &flags, array));
  printf("array info %zu %zu %zu flags %u\n", shape.width, shape.height, shape.depth, flags);

  // 6. 2D arrays: slice 0 in asynchronously, copied array to array at an offset, out asynchronously
  cudaArray_t flat, shifted;
  CHECK(cudaMallocArray(&flat, &desc, W, H));
  CHECK(cudaMallocArray(&shifted, &desc, W, H));
  CHECK(cudaMemcpy2DToArrayAsync(flat, 0, 0, volume.data(), W * sizeof(float), W * sizeof(float), H,
                                 cudaMemcpyHostToDevice, stream));
  std::vector<float> zeros(W * H, 0.0f);
  CHECK(cudaMemcpy2DToArray(shifted, 0, 0, zeros.data(), W * sizeof(float), W * sizeof(float), H,
                            cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2DArrayToArray(shifted, 2 * sizeof(float), 1, flat, 0, 0, (W - 2) * sizeof(float), H - 1,
                                 cudaMemcpyDeviceToDevice));
  std::vector<float> plane(W * H);
  CHECK(cudaMemcpy2DFromArrayAsync(plane.data(), W * sizeof(float), shifted, 0, 0, W * sizeof(float), H,
                                   cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  keep(plane.data(), plane.size());
  // the deprecated run copies: W + 3 floats from (4, 1) on, across a row end; array to array; out
  CHECK(cudaMemcpyToArrayAsync(shifted, 4 * sizeof(float), 1, volume.data() + W * H, (W + 3) * sizeof(float),
                               cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemcpyArrayToArray(flat, 0, 0, shifted, 0, 0, W * H * sizeof(float), cudaMemcpyDeviceToDevice));
  CHECK(cudaMemcpyFromArrayAsync(plane.data(), flat, 0, 0, W * H * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  keep(plane.data(), plane.size());
  // a peer copy on the one device: the memset volume's box (x 3.., y 2.., z 1..) to pinned host memory
  // (a peer copy takes device, pinned or registered memory; pageable memory is refused below)
  float *peerBox;
  CHECK(cudaMallocHost(&peerBox, bw * bh * bd * sizeof(float)));
  cudaMemcpy3DPeerParms peer = {0};
  peer.srcPtr = dev;
  peer.srcPos = make_cudaPos(3 * sizeof(float), 2, 1);
  peer.dstPtr = make_cudaPitchedPtr(peerBox, bw * sizeof(float), bw, bh);
  peer.extent = make_cudaExtent(bw * sizeof(float), bh, bd);
  CHECK(cudaMemcpy3DPeerAsync(&peer, stream));
  CHECK(cudaStreamSynchronize(stream));
  keep(peerBox, bw * bh * bd);
  CHECK(cudaArrayGetInfo(&got, &shape, &flags, flat));
  printf("flat info %zu %zu %zu flags %u\n", shape.width, shape.height, shape.depth, flags);
  write_file(argv[5], out.data(), out.size());

  // 7. refused calls
  cudaMemcpy3DParms bad = up;
  bad.srcArray = array;                                  // an array and a pointer on one side
  SAY("both array and pointer", cudaMemcpy3D(&bad));
  bad = up;
  bad.srcPtr.ptr = nullptr;                              // neither
  SAY("neither array nor pointer", cudaMemcpy3D(&bad));
  bad = up;
  bad.extent.width = dev.pitch + 4;                      // rows wider than the pitch
  SAY("wider than pitch", cudaMemcpy3D(&bad));
  bad = fromArray;
  bad.srcPos = make_cudaPos(W - 2, 0, 0);                // past the array's width
  SAY("past the array", cudaMemcpy3D(&bad));
  bad = up;
  bad.kind = (cudaMemcpyKind)7;
  SAY("bad kind", cudaMemcpy3D(&bad));
  SAY("null parms", cudaMemcpy3D(nullptr));
  cudaMemcpy3DPeerParms otherDevice = peer;
  otherDevice.dstDevice = 1;
  SAY("peer to device 1", cudaMemcpy3DPeer(&otherDevice));
  std::vector<float> pageableBox(bw * bh * bd);
  cudaMemcpy3DPeerParms pageable = peer;
  pageable.dstPtr = make_cudaPitchedPtr(pageableBox.data(), bw * sizeof(float), bw, bh);
  SAY("peer to pageable memory", cudaMemcpy3DPeerAsync(&pageable, stream));
  SAY("memset3d wider than pitch", cudaMemset3D(dev, 0, make_cudaExtent(dev.pitch + 1, 1, 1)));
  SAY("memcpy3d zero extent", cudaMemcpy3D(&(bad = up, bad.extent = make_cudaExtent(0, H, D), bad)));
  SAY("last error", cudaGetLastError());
  // wild struct pointers last: warpsim answers a code, a GPU's runtime reads them and dies
  SAY("wild parms", cudaMemcpy3D((cudaMemcpy3DParms *)0x10));
  SAY("malloc3d wild", cudaMalloc3D((cudaPitchedPtr *)0x10, extent));
  cudaGetLastError();
  CHECK(cudaDestroyTextureObject(tex));
  CHECK(cudaFreeArray(array));
  CHECK(cudaFreeArray(flat));
  CHECK(cudaFreeArray(shifted));
  CHECK(cudaFree(dev.ptr));
  CHECK(cudaFree(other.ptr));
  CHECK(cudaFree(fetched));
  CHECK(cudaFreeHost(peerBox));
  printf("memory3d done %zu\n", out.size());
  return 0;
}
