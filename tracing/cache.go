package tracing

import "github.com/nightshift-dev/nightshift/llm"

// cacheTokens are a usage's prompt tokens read from and written to the
// provider's cache. llm.Usage does not count them yet on this branch (the
// model table's branch adds CacheReadTokens and CacheWriteTokens); until
// then there are none to report.
func cacheTokens(llm.Usage) (read, write int64) { return 0, 0 }
