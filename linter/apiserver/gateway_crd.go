package apiserver

import (
	"context"
	"errors"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
)

// errRunSkipped marks a call the gateway left out because the rule run's
// budget was spent already when a worker came to it: the charge, made in
// the package's order, refuses it (runBudget).
var errRunSkipped = errors.New("left out: the rule run's budget is spent")

// validateCRDNow validates content, an apiextensions.k8s.io/v1
// CustomResourceDefinition as decoded JSON, as the API server validates it
// on create, through the gateway: it pre-counts the call (countCRD) and
// refuses it over a per-call limit (a budgetError) or when budget (nil:
// none) is spent already (errRunSkipped); then it builds the internal CRD
// the API server validates (internalCRD: decoded as the v1 type, where a
// value of the wrong type is refused, with the v1 defaults, converted to
// the internal type) and runs
// validation.ValidateCustomResourceDefinition (which checks the names,
// versions, conversion, the structural schema, defaults, list types and
// the CEL rules with their cost limits). Each finding's path is in
// content, mapped back from the internal type where the conversion moved a
// field (a schema common to all versions is held in spec.validation). It
// returns the pre-count, for the caller to charge to budget in the
// package's order (zero when the API server's code was not called). The
// API server's code does not look at ctx's cancellation: callers return
// early without waiting (ordered).
func validateCRDNow(ctx context.Context, content map[string]any, budget *runBudget) (cost callCost, out []finding, err error) {
	defer func() {
		if r := recover(); r != nil {
			cost, out, err = callCost{}, nil, fmt.Errorf("CRD validation failed: %v", r)
		}
	}()
	// The API server's structural check formats and sorts an error per
	// field without a type, at a cost per error far above the schema's
	// size (six CRDs of 50 000 untyped properties: 25 s, 300 MiB). A
	// schema with that many is refused whatever else it holds: say so
	// here, and leave the API server's code out.
	if fs := untypedFields(content, maxUntypedFields); len(fs) > maxUntypedFields {
		return callCost{}, fs[:maxFindings], nil
	}
	cost = countCRD(content)
	if err := cost.over(); err != nil {
		return callCost{}, nil, err
	}
	if budget != nil && budget.exceeds(cost) {
		return cost, nil, errRunSkipped
	}
	internal, fs, err := internalCRD(content)
	if err != nil || fs != nil {
		return cost, fs, err
	}
	errs := validation.ValidateCustomResourceDefinition(ctx, internal)
	return cost, findingsOf(content, errs, crdPath), nil
}

// withCrossplaneWebhook fills in a conversion webhook's client config as
// Crossplane's package manager does before it creates the CRD (Crossplane
// v2.1.0 internal/controller/pkg/revision/establisher.go, for a CRD whose
// conversion strategy is Webhook: the CA bundle, and a service named after
// the package in Crossplane's namespace, port 9443), so that only what the
// package itself gets wrong is reported.
func withCrossplaneWebhook(crd *apiextensionsv1.CustomResourceDefinition) {
	c := crd.Spec.Conversion
	if c == nil || c.Strategy != apiextensionsv1.WebhookConverter {
		return
	}
	if c.Webhook == nil {
		c.Webhook = &apiextensionsv1.WebhookConversion{}
	}
	if c.Webhook.ClientConfig == nil {
		c.Webhook.ClientConfig = &apiextensionsv1.WebhookClientConfig{}
	}
	if c.Webhook.ClientConfig.Service == nil {
		c.Webhook.ClientConfig.Service = &apiextensionsv1.ServiceReference{}
	}
	port := int32(9443)
	c.Webhook.ClientConfig.CABundle = []byte("-----BEGIN CERTIFICATE-----")
	c.Webhook.ClientConfig.Service.Name = "package"
	c.Webhook.ClientConfig.Service.Namespace = "crossplane-system"
	c.Webhook.ClientConfig.Service.Port = &port
}
