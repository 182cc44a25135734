package v1

// Target returns the kind of package a dependency names ("Provider",
// "Configuration" or "Function", as written) and its reference, whichever
// form the dependency uses, with the precedence Crossplane's package
// manager gives them when it records dependencies (the revision
// reconciler's dependency manager): APIVersion, Kind and Package when all
// three are set, then the deprecated Configuration, Provider and Function
// fields in that order. ok is false when the dependency has neither form
// (for example Package without Kind), which Crossplane refuses as an
// invalid dependency.
func (d *Dependency) Target() (kind, reference string, ok bool) {
	switch {
	case d == nil:
		return "", "", false
	case d.APIVersion != nil && d.Kind != nil && d.Package != nil:
		return *d.Kind, *d.Package, true
	case d.Configuration != nil:
		return "Configuration", *d.Configuration, true
	case d.Provider != nil:
		return "Provider", *d.Provider, true
	case d.Function != nil:
		return "Function", *d.Function, true
	}
	return "", "", false
}
