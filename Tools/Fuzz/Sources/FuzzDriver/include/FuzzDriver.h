// The libFuzzer entry of each fuzz target; see driver.c.
