package remote

// ResponseClasses is responseClasses, for the coverage test of the hostile
// registries.
var ResponseClasses = responseClasses
