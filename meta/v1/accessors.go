package v1

// GetCrossplaneConstraints returns the provider's Crossplane version
// constraints, or nil when it has none.
func (p *Provider) GetCrossplaneConstraints() *CrossplaneConstraints {
	return p.Spec.Crossplane
}

// GetDependencies returns the provider's dependencies.
func (p *Provider) GetDependencies() []Dependency { return p.Spec.DependsOn }

// GetCapabilities returns the provider's declared capabilities.
func (p *Provider) GetCapabilities() []string { return p.Spec.Capabilities }

// GetCrossplaneConstraints returns the configuration's Crossplane version
// constraints, or nil when it has none.
func (c *Configuration) GetCrossplaneConstraints() *CrossplaneConstraints {
	return c.Spec.Crossplane
}

// GetDependencies returns the configuration's dependencies.
func (c *Configuration) GetDependencies() []Dependency { return c.Spec.DependsOn }

// GetCapabilities returns the configuration's declared capabilities.
func (c *Configuration) GetCapabilities() []string { return c.Spec.Capabilities }

// GetCrossplaneConstraints returns the function's Crossplane version
// constraints, or nil when it has none.
func (f *Function) GetCrossplaneConstraints() *CrossplaneConstraints {
	return f.Spec.Crossplane
}

// GetDependencies returns the function's dependencies.
func (f *Function) GetDependencies() []Dependency { return f.Spec.DependsOn }

// GetCapabilities returns the function's declared capabilities.
func (f *Function) GetCapabilities() []string { return f.Spec.Capabilities }
