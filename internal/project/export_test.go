package project

// GeneratedSession and GeneratedSessions let the external tests
// (package project_test) validate the generated sessions.
var GeneratedSession = genSession

const GeneratedSessions = genSessions
