// Tiles: puts, gets and collectives of a 1-D or 2-D tile of a tensor (NVSHMEM 3.5-3.8's tile API; the contract is
// in docs/tile-api.md), over the mapped heaps: no multicast hardware needed, so they also run on PCIe peers and on
// PEs that share a GPU. A tensor is anything with data(), shape() and stride() (cuda::std::tuples whose elements
// are ints or integral_constants), as nvshmemx::Tensor is.
//
//   gshmem::dev::tile_put<Scope, Remote>(src, dst, start, boundary, pe)     (tile_get likewise)
//   gshmem::dev::tile_reduce<Scope, Op, Algo>(team, src, dst, start, boundary, root)   every member's dst
//   gshmem::dev::tile_rooted_reduce<Scope, Op>(team, src, dst, start, boundary, root)  root's dst
//   gshmem::dev::tile_allgather<Scope>(team, src, dst, start, boundary), tile_broadcast<Scope>(...)
//   gshmem::dev::tile_collective_wait<Scope, Algo>(team)
//
// The elements of a tile are shared by the group's threads. `start` and `boundary` are empty types (every element
// moves) or tuples of up to two ints: element (i0, i1) moves where start[d] + i_d < boundary[d]; the others are
// left as they are. src and dst are contiguous along the same dimension for the REMOTE put and get (a row each).
// Results: TileResult; kNotSupported where a member (or `pe`) is not mapped here (another host).
#pragma once

#if defined(__CUDACC__) && __cplusplus >= 201703L

#if defined(__has_include) && __has_include(<cuda/std/tuple>)
#include <cuda/std/tuple>
#include <cuda/std/type_traits>
#else
#include <cccl/cuda/std/tuple>
#include <cccl/cuda/std/type_traits>
#endif
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "gshmem/device/route.cuh"
#include "gshmem/device/scope.cuh"
#include "gshmem/device/team.cuh"

namespace gshmem {
namespace dev {

enum class TileResult : int { kOk = 0, kInvalid = 1, kNotSupported = 3 };
// How a tile collective moves data (NVSHMEM's tile_coll_algo_t names them by multicast; here they name the same
// pattern over the mapped heaps): every member reads every tile (pull), or one member reduces and stores the
// result to all (two-shot push), or each stores its own tile to all (push).
enum class TileAlgo : int { kOneShotPush = 0, kOneShotPull = 1, kTwoShotPush = 2, kTwoShotPull = 3 };
enum class TileOp { kSum, kMax, kMin };

namespace detail_tile {

template <class Tuple, int I>
__device__ __forceinline__ int64_t element(const Tuple& t, int64_t fallback) {
  if constexpr (I < static_cast<int>(cuda::std::tuple_size<Tuple>::value)) {
    return static_cast<int64_t>(cuda::std::get<I>(t));
  } else {
    return fallback;
  }
}

// Whether element I of a stride tuple is a compile-time 1.
template <class Tuple, int I>
__host__ __device__ constexpr bool unit_at_compile_time() {
  if constexpr (I < static_cast<int>(cuda::std::tuple_size<Tuple>::value)) {
    using E =
        cuda::std::remove_cv_t<cuda::std::remove_reference_t<decltype(cuda::std::get<I>(cuda::std::declval<Tuple>()))>>;
    if constexpr (cuda::std::is_base_of_v<cuda::std::integral_constant<int, 1>, E>) return true;
  }
  return false;
}

// A tensor as two extents and two strides (a 1-D tile is N x 1).
template <class T>
struct View {
  T* data;
  int64_t n[2];
  int64_t s[2];
};

template <class Tensor>
__device__ __forceinline__ View<typename Tensor::value_type> view(Tensor& t) {
  const auto shape = t.shape();
  const auto stride = t.stride();
  return View<typename Tensor::value_type>{
      t.data(),
      {element<decltype(shape), 0>(shape, 1), element<decltype(shape), 1>(shape, 1)},
      {element<decltype(stride), 0>(stride, 0), element<decltype(stride), 1>(stride, 0)}};
}

// The dimension along which both tensors are contiguous: known at compile time where both strides there are
// integral_constant 1, else dimension 1 where both strides are 1 at run time, else 0.
template <class Src, class Dst>
__device__ __forceinline__ int major_dim(const View<typename Src::value_type>& a,
                                         const View<typename Dst::value_type>& b) {
  using SS = decltype(cuda::std::declval<Src&>().stride());
  using DS = decltype(cuda::std::declval<Dst&>().stride());
  if constexpr (unit_at_compile_time<SS, 0>() && unit_at_compile_time<DS, 0>()) return 0;
  if constexpr (unit_at_compile_time<SS, 1>() && unit_at_compile_time<DS, 1>()) return 1;
  return a.s[1] == 1 && b.s[1] == 1 && (a.n[1] > 1 || b.n[1] > 1) ? 1 : 0;
}

template <class Tuple>
__device__ __forceinline__ bool inside(const Tuple& start, const Tuple& boundary, int64_t i0, int64_t i1) {
  if constexpr (cuda::std::is_empty_v<Tuple>) {
    return true;
  } else {
    constexpr int rank = static_cast<int>(cuda::std::tuple_size<Tuple>::value);
    static_assert(rank <= 2, "tile predicates have one or two coordinates");
    if (element<Tuple, 0>(start, 0) + i0 >= element<Tuple, 0>(boundary, INT64_MAX)) return false;
    if constexpr (rank == 2) {
      if (element<Tuple, 1>(start, 0) + i1 >= element<Tuple, 1>(boundary, INT64_MAX)) return false;
    }
    return true;
  }
}

// Calls f(src_offset, dst_offset, i0, i1) for the elements of the group's threads, walking the contiguous
// dimension fastest (neighbouring threads touch neighbouring elements).
template <Scope S, class T, class U, class Tuple, class F>
__device__ __forceinline__ void for_each(const View<T>& a, const View<U>& b, int major, const Tuple& start,
                                         const Tuple& boundary, F&& f) {
  const int64_t len = a.n[major], rows = a.n[1 - major];
  const int64_t total = len * rows;
  for (int64_t e = gshmem::detail::group_rank<S>(); e < total; e += gshmem::detail::group_size<S>()) {
    const int64_t im = e % len, in = e / len;
    const int64_t i0 = major == 0 ? im : in, i1 = major == 0 ? in : im;
    if (!inside(start, boundary, i0, i1)) continue;
    f(i0 * a.s[0] + i1 * a.s[1], i0 * b.s[0] + i1 * b.s[1], i0, i1);
  }
}

template <class T>
__device__ __forceinline__ float to_float(T v) {
  if constexpr (cuda::std::is_same_v<T, __half>) {
    return __half2float(v);
  } else if constexpr (cuda::std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else {
    return static_cast<float>(v);
  }
}
template <class T>
__device__ __forceinline__ T from_float(float v) {
  if constexpr (cuda::std::is_same_v<T, __half>) {
    return __float2half_rn(v);
  } else if constexpr (cuda::std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(v);
  } else {
    return static_cast<T>(v);
  }
}
template <TileOp Op>
__device__ __forceinline__ float combine(float a, float b) {
  if constexpr (Op == TileOp::kSum) {
    return a + b;
  } else if constexpr (Op == TileOp::kMax) {
    return fmaxf(a, b);
  } else {
    return fminf(a, b);
  }
}

template <class Src, class Dst>
__host__ __device__ constexpr void check_types() {
  using T = typename Src::value_type;
  static_assert(cuda::std::is_same_v<cuda::std::remove_cv_t<T>, cuda::std::remove_cv_t<typename Dst::value_type>>,
                "a tile operation's src and dst hold the same element type");
}

// The team's slot, or nullptr (with a message from the group's first thread) where a member is not mapped here.
template <Scope S>
__device__ __forceinline__ const gshmem::detail::TeamSlot* mapped_team(int team, const char* api) {
  const gshmem::detail::TeamSlot& t = detail_team::member_slot(team, api);
  if (gshmem::detail::route::all_mapped(t)) return &t;
  if (gshmem::detail::group_rank<S>() == 0) {
    printf(
        "gshmem: %s: a member of team %d is on another host; tile collectives need every member's heap mapped "
        "(use the ordinary collectives there)\n",
        api, team);
  }
  return nullptr;
}

// The reduction of element `off` of every member's src (in float; 16-bit types are reduced in fp32).
template <TileOp Op, class T>
__device__ __forceinline__ T reduce_members(const gshmem::detail::TeamSlot& t, const T* src, int64_t off) {
  float acc = to_float(*reinterpret_cast<const T*>(gshmem::detail::route::address(src + off, t.pe(0))));
  for (int m = 1; m < t.size; ++m) {
    acc = combine<Op>(acc, to_float(*reinterpret_cast<const T*>(gshmem::detail::route::address(src + off, t.pe(m)))));
  }
  return from_float<T>(acc);
}

}  // namespace detail_tile

// A tile from this PE's `src` into `pe`'s copy of the symmetric `dst` (tile_get: from `pe`'s copy of the symmetric
// `src` into this PE's `dst`). Remote = false: loads and stores through the peer's mapping (kNotSupported where
// `pe` is not mapped here); Remote = true: one non-blocking copy per row through the route to `pe` (any PE; start
// and boundary are not applied; both tensors contiguous along one dimension). Complete by quiet or a barrier.
template <Scope S, bool Remote, bool Put, class Src, class Dst, class Tuple>
__device__ __forceinline__ TileResult tile_copy(Src src, Dst dst, Tuple start, Tuple boundary, int pe) {
  using namespace gshmem::detail;
  detail_tile::check_types<Src, Dst>();
  using T = typename Src::value_type;
  const auto a = detail_tile::view(src);
  const auto b = detail_tile::view(dst);
  if (a.data == nullptr || b.data == nullptr || a.n[0] * a.n[1] != b.n[0] * b.n[1]) return TileResult::kInvalid;
  const int major = detail_tile::major_dim<Src, Dst>(a, b);
  if constexpr (Remote) {
    if (a.s[major] != 1 || b.s[major] != 1 || a.n[major] != b.n[major]) return TileResult::kInvalid;
    const int64_t rows = a.n[1 - major], len = a.n[major];
    for (int64_t r = group_rank<S>(); r < rows; r += group_size<S>()) {
      T* d = b.data + r * b.s[1 - major];
      const T* s = a.data + r * a.s[1 - major];
      route::copy<Scope::kThread, Put ? route::Dir::kPut : route::Dir::kGet, route::Done::kNbi>(
          d, s, static_cast<size_t>(len) * sizeof(T), pe);
    }
    group_sync<S>();
    return TileResult::kOk;
  } else {
    if (route::proxied(pe)) return TileResult::kNotSupported;
    T* to = Put ? reinterpret_cast<T*>(route::address(b.data, pe)) : b.data;
    const T* from = Put ? a.data : reinterpret_cast<const T*>(route::address(a.data, pe));
    detail_tile::for_each<S>(a, b, major, start, boundary,
                             [&](int64_t so, int64_t dof, int64_t, int64_t) { to[dof] = from[so]; });
    return TileResult::kOk;
  }
}

// The all-reduce of a tile over the team's members into every member's dst. kOneShotPull: a team sync, then every
// member reduces every member's src into its own dst (src must not change until a later team sync); kTwoShotPush:
// a team sync, then member `root` (required) reduces and stores the result into every member's dst (complete by
// tile_collective_wait). root < 0 with kTwoShotPush is kInvalid.
template <Scope S, TileOp Op, TileAlgo Algo, class Src, class Dst, class Tuple>
__device__ __forceinline__ TileResult tile_reduce(int team, Src src, Dst dst, Tuple start, Tuple boundary, int root) {
  static_assert(Algo == TileAlgo::kOneShotPull || Algo == TileAlgo::kTwoShotPush,
                "a tile reduction runs one-shot pull or two-shot push");
  detail_tile::check_types<Src, Dst>();
  using T = typename Dst::value_type;
  const auto a = detail_tile::view(src);
  const auto b = detail_tile::view(dst);
  if (a.data == nullptr || b.data == nullptr || a.n[0] != b.n[0] || a.n[1] != b.n[1]) return TileResult::kInvalid;
  const gshmem::detail::TeamSlot* t = detail_tile::mapped_team<S>(team, "nvshmemx::tile_reduce");
  if (t == nullptr) return TileResult::kNotSupported;
  if (Algo == TileAlgo::kTwoShotPush && (root < 0 || root >= t->size)) return TileResult::kInvalid;
  gshmem::dev::team_sync<S>(team);
  if (Algo == TileAlgo::kTwoShotPush && t->my_index != root) return TileResult::kOk;
  const int major = detail_tile::major_dim<Src, Dst>(a, b);
  detail_tile::for_each<S>(a, b, major, start, boundary, [&](int64_t so, int64_t dof, int64_t, int64_t) {
    const T v = detail_tile::reduce_members<Op>(*t, a.data, so);
    if constexpr (Algo == TileAlgo::kOneShotPull) {
      b.data[dof] = v;
    } else {
      for (int m = 0; m < t->size; ++m) {
        *reinterpret_cast<T*>(gshmem::detail::route::address(b.data + dof, t->pe(m))) = v;
      }
    }
  });
  return TileResult::kOk;
}

// The reduction of a tile over the team's members into member `root`'s dst (one-shot pull: a team sync, then the
// root reads every member's src).
template <Scope S, TileOp Op, class Src, class Dst, class Tuple>
__device__ __forceinline__ TileResult tile_rooted_reduce(int team, Src src, Dst dst, Tuple start, Tuple boundary,
                                                         int root) {
  detail_tile::check_types<Src, Dst>();
  using T = typename Dst::value_type;
  const auto a = detail_tile::view(src);
  const auto b = detail_tile::view(dst);
  if (a.data == nullptr || b.data == nullptr || a.n[0] != b.n[0] || a.n[1] != b.n[1]) return TileResult::kInvalid;
  const gshmem::detail::TeamSlot* t = detail_tile::mapped_team<S>(team, "nvshmemx::tile_rooted_reduce");
  if (t == nullptr) return TileResult::kNotSupported;
  if (root < 0 || root >= t->size) return TileResult::kInvalid;
  gshmem::dev::team_sync<S>(team);
  if (t->my_index != root) return TileResult::kOk;
  const int major = detail_tile::major_dim<Src, Dst>(a, b);
  detail_tile::for_each<S>(a, b, major, start, boundary, [&](int64_t so, int64_t dof, int64_t, int64_t) {
    b.data[dof] = detail_tile::reduce_members<Op>(*t, a.data, so);
  });
  return TileResult::kOk;
}

// Each member's src tile into its slot of every member's dst: member m's tile starts k = m * S elements along the
// contiguous dimension of dst (S, D: the contiguous extents of src and dst), wrapping every D elements into the next
// block of src's rows. src's elements times the team's size must be dst's. No sync before (src must be ready);
// complete by tile_collective_wait.
template <Scope S, class Src, class Dst, class Tuple>
__device__ __forceinline__ TileResult tile_allgather(int team, Src src, Dst dst, Tuple start, Tuple boundary) {
  detail_tile::check_types<Src, Dst>();
  using T = typename Dst::value_type;
  const auto a = detail_tile::view(src);
  const auto b = detail_tile::view(dst);
  const gshmem::detail::TeamSlot* t = detail_tile::mapped_team<S>(team, "nvshmemx::tile_allgather");
  if (t == nullptr) return TileResult::kNotSupported;
  if (a.data == nullptr || b.data == nullptr || a.n[0] * a.n[1] * t->size != b.n[0] * b.n[1]) {
    return TileResult::kInvalid;
  }
  const int major = detail_tile::major_dim<Src, Dst>(a, b);
  const int64_t k = static_cast<int64_t>(t->my_index) * a.n[major], d = b.n[major];
  const int64_t base = (k % d) * b.s[major] + (k / d) * a.n[1 - major] * b.s[1 - major];
  detail_tile::for_each<S>(a, b, major, start, boundary, [&](int64_t so, int64_t dof, int64_t, int64_t) {
    const T v = a.data[so];
    for (int m = 0; m < t->size; ++m) {
      *reinterpret_cast<T*>(gshmem::detail::route::address(b.data + base + dof, t->pe(m))) = v;
    }
  });
  return TileResult::kOk;
}

// The calling member's src tile into every member's dst (the caller is the root). No sync before; complete by
// tile_collective_wait on every member.
template <Scope S, class Src, class Dst, class Tuple>
__device__ __forceinline__ TileResult tile_broadcast(int team, Src src, Dst dst, Tuple start, Tuple boundary) {
  detail_tile::check_types<Src, Dst>();
  using T = typename Dst::value_type;
  const auto a = detail_tile::view(src);
  const auto b = detail_tile::view(dst);
  if (a.data == nullptr || b.data == nullptr || a.n[0] != b.n[0] || a.n[1] != b.n[1]) return TileResult::kInvalid;
  const gshmem::detail::TeamSlot* t = detail_tile::mapped_team<S>(team, "nvshmemx::tile_broadcast");
  if (t == nullptr) return TileResult::kNotSupported;
  const int major = detail_tile::major_dim<Src, Dst>(a, b);
  detail_tile::for_each<S>(a, b, major, start, boundary, [&](int64_t so, int64_t dof, int64_t, int64_t) {
    const T v = a.data[so];
    for (int m = 0; m < t->size; ++m) *reinterpret_cast<T*>(gshmem::detail::route::address(b.data + dof, t->pe(m))) = v;
  });
  return TileResult::kOk;
}

// Completes this group's earlier tile collectives on `team`. The push algorithms: a system-scope fence and a team
// sync, on every member (then every member's stores are visible in every dst). One-shot pull: a fence of this PE's
// own stores (no sync: another member may still read this PE's src).
template <Scope S, TileAlgo Algo>
__device__ __forceinline__ TileResult tile_collective_wait(int team) {
  static_assert(Algo != TileAlgo::kTwoShotPull, "no tile collective runs two-shot pull");
  if constexpr (Algo == TileAlgo::kOneShotPull) {
    __threadfence();
    gshmem::detail::group_sync<S>();
  } else {
    gshmem::detail::by_first_thread<S>([] { __threadfence_system(); });
    gshmem::dev::team_sync<S>(team);
  }
  return TileResult::kOk;
}

}  // namespace dev
}  // namespace gshmem

#endif  // __CUDACC__ && C++17
