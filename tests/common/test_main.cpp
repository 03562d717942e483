// main() of every test binary. Tests must not share a plan database through their working
// directory (the engine's default is ./.ember/plans.db, so one test's plans and exploration
// budget would leak into the next), so the database is off unless the environment names one:
// tests of the database set EMBER_PLAN_DB for the processes they start. Likewise the
// shared-memory tier is off unless asked for: its segments outlive the processes (they live in
// /dev/shm until removed), so the tests that use it set EMBER_SHM=on and remove what they made.
#include <cstdlib>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  setenv("EMBER_PLAN_DB", "off", /*overwrite=*/0);
  setenv("EMBER_SHM", "off", /*overwrite=*/0);
  testing::InitGoogleMock(&argc, argv);
  return RUN_ALL_TESTS();
}
