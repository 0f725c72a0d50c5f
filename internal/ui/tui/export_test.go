package tui

// ApprovalGuard is approvalGuard for the end-to-end tests (package
// tui_test).
const ApprovalGuard = approvalGuard
