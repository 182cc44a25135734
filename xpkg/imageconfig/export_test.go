package imageconfig

// Configs returns the ImageConfigs of the set, sorted by name, for the
// tests.
func (s *Set) Configs() []imageConfig { return s.configList() }
