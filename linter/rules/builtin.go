package rules

import (
	"strings"

	"github.com/xpkgkit/xpkgkit/linter"
)

// Builtin returns the built-in rules, fresh copies in ID order: the caller
// may modify them (for example to change a Severity) without affecting
// other callers. RULES.md describes each.
func Builtin() []*linter.Rule {
	return []*linter.Rule{
		ruleYAMLSyntax(),
		ruleMissingType(),
		ruleEmptyPackage(),
		ruleUnusedSuppression(),
		withKindTypes(ruleFieldType()),
		ruleSkippedFile(),
		ruleDuplicateKey(),
		ruleMetaFileName(),

		ruleOneMeta(),
		ruleAllowedKind(),
		ruleDeprecatedMetaVersion(),
		ruleDeprecatedCRDVersion(),
		ruleDuplicateObject(),
		ruleUnknownField(),

		ruleMetaName(),
		ruleCrossplaneConstraint(),
		ruleCrossplaneCompatible(),
		ruleLicense(),
		ruleSourceURL(),
		ruleDescription(),
		ruleMaintainer(),
		ruleController(),
		rulePermissionRequests(),
		ruleCapabilities(),
		ruleMetaLabels(),

		ruleDependencySource(),
		ruleDependencyVersion(),
		ruleDependencyReference(),
		ruleDependencyDeprecatedField(),
		ruleDependencyDuplicate(),

		ruleCRDName(),
		ruleCRDVersions(),
		ruleCRDSchema(),
		ruleXRDName(),
		ruleXRDVersions(),
		ruleXRDClaimNames(),
		ruleCompositionTypeRef(),
		ruleExampleSchema(),
		ruleComposedResourceSchema(),
		ruleCompositionMode(),
		ruleDefinitionKind(),
		ruleObjectName(),

		ruleXRDListMapKeys(),
		ruleXRDBoolean(),
		ruleXRDFieldDescription(),
		ruleXRDStatusRequired(),
		ruleXRDPreserveSpec(),
		ruleXRDVersionName(),
		ruleXRDRequiredDescription(),
		ruleXRDEnumDefault(),
		ruleXRDStatusValidation(),

		ruleBaseLayers(),
		ruleNoBaseAnnotation(),
		rulePackageYAMLLocation(),
		ruleLegacyStack(),
	}
}

// Lookup returns a fresh copy of the built-in rule with the given ID (any
// case) or name, or nil when there is none.
func Lookup(idOrName string) *linter.Rule {
	idOrName = strings.TrimSpace(idOrName)
	for _, r := range Builtin() {
		if r.Matches(idOrName) {
			return r
		}
	}
	return nil
}
