#include "engine/search/graph/subgraph.h"

#include <algorithm>
#include <bit>

namespace ember {

SubGraph::Iterator::Iterator(const SubGraph* set, size_t word_index)
    : set_(set), word_index_(word_index) {
  if (word_index_ < set_->NumWords()) {
    remaining_ = set_->Word(word_index_);
    SkipEmptyWords();
  }
}

void SubGraph::Iterator::SkipEmptyWords() {
  const size_t num_words = set_->NumWords();
  while (remaining_ == 0 && word_index_ < num_words) {
    ++word_index_;
    if (word_index_ < num_words) remaining_ = set_->Word(word_index_);
  }
}

size_t SubGraph::Iterator::operator*() const {
  return word_index_ * kWordBits + static_cast<size_t>(std::countr_zero(remaining_));
}

SubGraph::Iterator& SubGraph::Iterator::operator++() {
  remaining_ &= remaining_ - 1;  // clear the lowest set bit
  SkipEmptyWords();
  return *this;
}

SubGraph::Iterator SubGraph::Iterator::operator++(int) {
  Iterator before = *this;
  ++*this;
  return before;
}

SubGraph SubGraph::Single(size_t node) {
  SubGraph set;
  set.Insert(node);
  return set;
}

size_t SubGraph::Size() const {
  size_t count = static_cast<size_t>(std::popcount(word0_));
  for (uint64_t word : spill_) count += static_cast<size_t>(std::popcount(word));
  return count;
}

bool SubGraph::Contains(size_t node) const {
  const size_t index = node / kWordBits;
  if (index >= NumWords()) return false;
  return (Word(index) >> (node % kWordBits)) & 1;
}

void SubGraph::Insert(size_t node) {
  const uint64_t bit = uint64_t{1} << (node % kWordBits);
  const size_t index = node / kWordBits;
  if (index == 0) {
    word0_ |= bit;
    return;
  }
  if (index > spill_.size()) spill_.resize(index, 0);
  spill_[index - 1] |= bit;
}

void SubGraph::UnionWith(const SubGraph& other) {
  word0_ |= other.word0_;
  if (other.spill_.size() > spill_.size()) spill_.resize(other.spill_.size(), 0);
  for (size_t k = 0; k < other.spill_.size(); ++k) spill_[k] |= other.spill_[k];
}

void SubGraph::IntersectWith(const SubGraph& other) {
  word0_ &= other.word0_;
  if (spill_.size() > other.spill_.size()) spill_.resize(other.spill_.size());
  for (size_t k = 0; k < spill_.size(); ++k) spill_[k] &= other.spill_[k];
  Trim();
}

void SubGraph::Subtract(const SubGraph& other) {
  word0_ &= ~other.word0_;
  const size_t shared = std::min(spill_.size(), other.spill_.size());
  for (size_t k = 0; k < shared; ++k) spill_[k] &= ~other.spill_[k];
  Trim();
}

bool SubGraph::Intersects(const SubGraph& other) const {
  if ((word0_ & other.word0_) != 0) return true;
  const size_t shared = std::min(spill_.size(), other.spill_.size());
  for (size_t k = 0; k < shared; ++k) {
    if ((spill_[k] & other.spill_[k]) != 0) return true;
  }
  return false;
}

void SubGraph::Trim() {
  while (!spill_.empty() && spill_.back() == 0) spill_.pop_back();
}

}  // namespace ember
