package scripted

// Provider names the scripted model for traces (gen_ai.provider.name):
// it is nobody's API, so it says so.
func (m *Model) Provider() string { return "nightshift.scripted" }
