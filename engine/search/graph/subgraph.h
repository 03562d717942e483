// SubGraph: a set of node indices of one Dag (burn's search/graph/subgraph.rs).
//
// The search uses subgraphs for the direct and transitive edges of a Dag and for a Block's
// `constituents` (the original blocks a merged block stands for; see Note [Merge guard] in
// engine/search/graph/dag.h). Graphs are small (the block cap is 5 by default, chunk graphs are
// a few dozen nodes), so indices 0..63 live in one inline word and never allocate; larger
// indices spill into a vector of words.
//
// Canonical form: the spill vector never ends with a zero word. Every operation that may clear
// bits trims it again, so two subgraphs holding the same nodes compare equal with the defaulted
// (structural) operator==.
//
// Value type, no internal synchronization; copy freely.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace ember {

class SubGraph {
 public:
  // Ascending node indices of a subgraph. Invalidated by any change to the subgraph.
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = size_t;
    using difference_type = std::ptrdiff_t;
    using pointer = const size_t*;
    using reference = size_t;

    Iterator() = default;

    size_t operator*() const;
    Iterator& operator++();
    Iterator operator++(int);
    bool operator==(const Iterator& other) const {
      return word_index_ == other.word_index_ && remaining_ == other.remaining_;
    }

   private:
    friend class SubGraph;
    Iterator(const SubGraph* set, size_t word_index);
    // Moves to the next word that still has bits, or to the end position.
    void SkipEmptyWords();

    const SubGraph* set_ = nullptr;
    size_t word_index_ = 0;   // 0 is word0_, k >= 1 is spill_[k - 1]; NumWords() is the end
    uint64_t remaining_ = 0;  // the bits of the current word not yet visited
  };

  SubGraph() = default;

  // The subgraph {node}.
  static SubGraph Single(size_t node);

  bool Empty() const { return word0_ == 0 && spill_.empty(); }
  // The number of nodes.
  size_t Size() const;
  bool Contains(size_t node) const;

  void Insert(size_t node);
  // this ∪= other.
  void UnionWith(const SubGraph& other);
  // this ∩= other.
  void IntersectWith(const SubGraph& other);
  // this −= other.
  void Subtract(const SubGraph& other);
  // Whether this ∩ other is non-empty.
  bool Intersects(const SubGraph& other) const;

  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, NumWords()); }

  bool operator==(const SubGraph&) const = default;

 private:
  static constexpr size_t kWordBits = 64;

  size_t NumWords() const { return 1 + spill_.size(); }
  uint64_t Word(size_t index) const { return index == 0 ? word0_ : spill_[index - 1]; }
  // Restores the canonical form: drops trailing zero words of spill_.
  void Trim();

  uint64_t word0_ = 0;           // nodes 0..63
  std::vector<uint64_t> spill_;  // spill_[k] holds nodes 64(k+1) .. 64(k+2)-1
};

}  // namespace ember
