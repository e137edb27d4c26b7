// The teams of this PE: the predefined ones, and those made by splits and unique IDs.
//
// Memory: a *team region* of this PE's symmetric heap (one allocation at start) holds the table of
// slots that kernels read (detail::TeamSlot per id) and, after it, the teams' sync areas, which are
// allocated here from this PE's part of the region without any step of the other PEs: an area's size
// grows with its team (detail::SyncLayout), and its offset is told to the other members when the team
// is made. Making a team costs one exchange of 32-byte records between the parent's members (through
// the parent's sync areas) and one barrier of the parent; no device-wide synchronisation.
//
// Every call that makes or destroys a team is collective over the PEs involved; a PE that passes
// arguments that differ from the others', or invalid ones, gets an error on every PE alike (after the
// exchange), never a hang.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gshmem/detail/team.h"
#include "gshmem/types.hpp"
#include "heap/allocator.h"
#include "util/status.h"

namespace gshmem {

class SymmetricHeap;
class TransportManager;

struct TeamInfo {
  int id = -1;
  std::vector<int> members;  // world PEs, in team order
  int my_index = -1;
  int start = 0, stride = 1;  // when strided (members[i] == start + i * stride)
  bool strided = true;
  uint64_t sync = 0;              // heap offset of this PE's sync area
  std::vector<uint64_t> sync_of;  // heap offset of each member's
  TeamConfig config;
  uint64_t splits = 0;  // teams split from this one so far (selects the exchange buffer)
  bool predefined = false;
  int size() const { return static_cast<int>(members.size()); }
};

class Teams {
 public:
  struct Services {
    SymmetricHeap* heap = nullptr;
    TransportManager* transports = nullptr;  // the path to each PE
    int my_pe = 0;
    int n_pes = 1;
    uint64_t ll_period = uint64_t{1} << 31;  // TeamSlot::ll_period and ...
    uint32_t ll_max_bytes = 64;              // ... ll_max_bytes of every team
    // Bytes of scratch at the end of the sync area of every team of 2 or more members, where kernels'
    // reductions across the network stage the sources (TeamSlot::scratch_bytes); 0: none.
    uint32_t reduce_scratch = 0;
    // The team's barrier, as a collective over it (a host barrier: quiet, then wait for every member).
    std::function<Status(int team, const char* api)> barrier;
  };

  // The predefined teams (ids 0..3 from `predefined`, world PEs in team order; an empty list leaves the
  // id unused), known from the bootstrap on: find() answers for them before init().
  void set_predefined(const std::vector<std::vector<int>>& predefined, int my_pe);
  // Sets up the table and the predefined teams' sync areas. `region` and `region_bytes` locate the team
  // region in this PE's heap (the same offset on every PE); `capacity` is the number of team ids.
  // Collective.
  Status init(const Services& services, uint64_t region, uint64_t region_bytes, int capacity);
  void finalize();
  bool ready() const { return ready_; }

  // The team with this id, or nullptr (before init(), only the predefined teams, without sync areas).
  const TeamInfo* find(int id) const;
  // The slot kernels read for `id` (its pointers are addresses in this PE's heap); nullptr if none.
  const detail::TeamSlot* slot(int id) const;
  int translate(int src_team, int src_pe, int dest_team) const;

  // nvshmem_team_split_strided: *out is the new id, or GSHMEM_TEAM_INVALID for a PE not in it.
  Status split_strided(int parent, int start, int stride, int size, const TeamConfig& config, int* out,
                       const char* api);
  // nvshmem_team_split_2d: both axes in one exchange.
  Status split_2d(int parent, int xrange, const TeamConfig& xconfig, int* xout, const TeamConfig& yconfig, int* yout,
                  const char* api);
  // nvshmemx_team_get_uniqueid / nvshmemx_team_init.
  Status make_uniqueid(uint64_t* out, const char* api);
  Status init_from_uniqueid(uint64_t uid, int npes, int index, const TeamConfig& config, int* out, const char* api);
  Status destroy(int id, const char* api);

  // Bytes of sync area a team of `n` members takes on each member, its scratch included.
  uint64_t area_bytes(int n) const;
  size_t alive() const;

  // Whether every member of `team` passed the same (a, b, n) to a collective: one exchange of the
  // team. Otherwise a message listing each PE's `args(a, b, n)`, and GSHMEM_ERROR_SYMMETRY on every
  // member alike. Collective over the team.
  Status same_arguments(int team, int32_t a, int32_t b, uint64_t n, const char* what, const char* api,
                        const std::function<std::string(int32_t, int32_t, uint64_t)>& args);

 private:
  char* heap_base() const;
  // Whether this PE reaches `pe`'s heap (mapped here, or through the network).
  bool reaches(int pe) const;
  // Copies into / out of `pe`'s heap at `offset` (by address where it is mapped, else through the
  // network), complete on return; reads move whole 8-byte words where the heap is mapped.
  Status write_to(int pe, uint64_t offset, const void* src, size_t bytes);
  Status read_from(int pe, uint64_t offset, void* dst, size_t bytes);
  // Bytes of reduction scratch in the sync area of a team of `n` members (none for a team of one).
  uint32_t scratch_of(int n) const;
  Status allocate_area(int n, uint64_t* offset, const char* api);
  void free_area(uint64_t offset);
  Status allocate_id(int* id, const char* api);
  // Writes the new team's slot and arrays into this PE's heap (where kernels read them).
  Status publish(TeamInfo& t);
  // The parent of a split, or nullptr after a message.
  TeamInfo* parent_of(int id, const char* api);
  // Whether every member passed the same arguments (a, b, c of the records); otherwise a message that
  // lists each PE's `args` and GSHMEM_ERROR_SYMMETRY.
  Status agree(const TeamInfo& parent, const std::vector<detail::ExchangeRecord>& all, const char* what,
               const char* api, const std::function<std::string(const detail::ExchangeRecord&)>& args) const;
  Status exchange(TeamInfo& parent, const detail::ExchangeRecord& mine, std::vector<detail::ExchangeRecord>* all,
                  const char* api);
  Status build(const std::vector<int>& members, int my_index, uint64_t sync, std::vector<uint64_t> sync_of,
               const TeamConfig& config, int* out);
  std::string describe(int id) const;

  Services sv_;
  bool ready_ = false;
  uint64_t region_ = 0;
  uint64_t areas_ = 0;  // first byte after the table
  int capacity_ = 0;
  HeapAllocator pool_{64};
  std::vector<std::vector<int>> predefined_;
  std::vector<TeamInfo> teams_;  // by id; id < 0 marks a free entry
  std::vector<int> free_ids_;
  uint64_t uid_serial_ = 0;
};

}  // namespace gshmem
