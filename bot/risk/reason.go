package risk

// ReasonCode names one kind of reason Assess gives. The package says no
// reason in any language: a catalog of package bot/i18n says it in its
// own (Text.RiskReason), so a new language is a change there alone. The
// codes are a closed set, listed by ReasonCodes; the zero value is no
// reason.
type ReasonCode int

// Reason is one reason of a risk assessment: its code, and the detail
// (a command, a path, a list) that the reason's text quotes verbatim.
// Two reasons are the same reason exactly when they are equal, which is
// how Assess says each only once.
type Reason struct {
	Code ReasonCode
	Arg  string
}

// The reason codes, named after their English wording. No two codes may
// read alike for some detail: what several parts of Assess find alike is
// one code with the difference in the detail (ReasonReadOnlyCommand with
// the command), since Assess drops a reason equal to one it already gives
// and a person must not read the same reason twice.
const (
	_ ReasonCode = iota
	ReasonNoCommandGiven
	ReasonEditsFilesWhichOnesWas
	ReasonReadsFilesWhichOnesWas
	ReasonReadsFilesInTheProject
	ReasonLooksAtTheProject
	ReasonWorksOutsideTheProjectDirectory
	ReasonFetchesAWebPage
	ReasonSearchesTheWeb
	ReasonStartsASubagent
	ReasonTheAgentKeepsRepeatingThe
	ReasonPermissionKindNotGiven
	ReasonUnknownPermissionKind
	ReasonNestsCommandsTooDeeplyTo
	ReasonEmptyCommand
	ReasonForkBomb
	ReasonDefinesAShellFunction
	ReasonOpensARawNetworkConnection
	ReasonCouldNotReadTheWhole
	ReasonChainsSeveralCommands
	ReasonPipesOutputIntoAnotherCommand
	ReasonRunsACommandInThe
	ReasonRunsCommandsInASubshell
	ReasonUsesCommandSubstitution
	ReasonNoCommandFound
	ReasonInjectsLibrariesIntoAProgram
	ReasonSetsEnvironmentVariables
	ReasonRunsAsAnotherUser
	ReasonLooksUpACommand
	ReasonPrintsEnvironmentVariablesWhichMay
	ReasonEchoesItsInput
	ReasonUnknownCommand
	ReasonRunsACommandForEachLine
	ReasonTouchesSecretsOrCredentials
	ReasonUsesEval
	ReasonRunsAScriptInThe
	ReasonDeletesFiles
	ReasonFormatsAFileSystem
	ReasonWritesRawDataToDisks
	ReasonChangesTheRunLevel
	ReasonDeletesTheCrontabCrontabR
	ReasonChangesScheduledJobsCrontab
	ReasonDownloadsOrSendsDataOver
	ReasonConnectsToAnotherMachine
	ReasonDeletesFilesWhileSyncingRsync
	ReasonCopiesFilesRsync
	ReasonEditsFilesInPlaceSed
	ReasonSedScriptMayWriteFiles
	ReasonAwkProgramRunsCommandsOr
	ReasonChangesShellVariablesOptionsOr
	ReasonWritesFiles
	ReasonClearsTheShellHistory
	ReasonChangesOrWritesTheShell
	ReasonReadOnlyCommand
	ReasonRunsOutputAsACommand
	ReasonRunsACommandNamedBy
	ReasonReadsAHereDocument
	ReasonExpandsAVariable
	ReasonReadsOutsideTheProject
	ReasonUsesBraceExpansion
	ReasonMatchesHiddenFilesWithA
	ReasonReadsADotfileOrHidden
	ReasonWritesFilesOrRunsPrograms
	ReasonWritesItsOutputToA
	ReasonSetsTheHostName
	ReasonRunsLessCommandsLess
	ReasonContactsARemoteGitLs
	ReasonReadsEnvironmentVariablesWhichMay
	ReasonReadsSecretsOrCredentials
	ReasonRedirectsInput
	ReasonRedirectsOutput
	ReasonWritesToADiskDevice
	ReasonRedirectsOutputIntoAFile
	ReasonDeletesWithoutProtectingRmNo
	ReasonDeletesFilesRecursivelyAndWithout
	ReasonDeletesFilesRecursivelyRmR
	ReasonDeletesABroadPath
	ReasonDeletesEveryFileFoundFind
	ReasonRunsACommandForEachFileFound
	ReasonWritesAFileFind
	ReasonRewritesOrDeletesRemoteHistory
	ReasonPushesToARemoteGit
	ReasonDiscardsLocalChangesGitReset
	ReasonMovesTheBranchGitReset
	ReasonDeletesUntrackedFilesGitClean
	ReasonCleansTheWorkTreeGit
	ReasonDiscardsLocalChangesGit
	ReasonChangesTheWorkTreeGit
	ReasonForceDeletesABranchGit
	ReasonChangesBranchesGitBranch
	ReasonChangesTagsGitTag
	ReasonChangesRemotesGitRemote
	ReasonChangesGitConfigurationGitConfig
	ReasonThrowsStashedChangesAwayGit
	ReasonStashesChangesGitStash
	ReasonDeletesReflogEntriesGitReflog
	ReasonRewritesRepositoryHistoryGit
	ReasonDeletesUnreachableObjectsGit
	ReasonRepacksTheRepositoryGitGc
	ReasonChangesWorkTreesGitWorktree
	ReasonChangesTheRepositoryGit
	ReasonSetsTheSetuidOrSetgid
	ReasonChangesOwnershipOrPermissionsOnABroadPath
	ReasonChangesOwnershipOrPermissionsRecursively
	ReasonChangesOwnershipOrPermissions
	ReasonKillsInitOrEveryProcess
	ReasonStopsProcesses
	ReasonChangesKernelSettingsSysctl
	ReasonChangesSystemServicesOrSettings
	ReasonRunsAContainerWithHost
	ReasonDeletesContainersImagesOrCluster
	ReasonPublishesAnImagePush
	ReasonRunsContainersOrClusterCommands
	ReasonPublishesOrChangesSomethingPublic
	ReasonRemovesInstalledPackages
	ReasonChangesGoSettingsGoEnv
	ReasonRuns
	ReasonRunsACommandThroughA
	ReasonPipesTextIntoAShell
	ReasonRunsAHereDocumentThrough
	ReasonRunsGeneratedOrDownloadedText
	ReasonRunsAScript
	ReasonStartsAShell
	ReasonRunsOutputAsCode
	ReasonRunsInlineCode
	ReasonEditsFilesInPlacePerl
	ReasonPipesTextIntoAnInterpreter
	ReasonRunsGeneratedOrDownloadedCode
	ReasonRunsInlineCodeFromA
	ReasonRunsAProgram
	ReasonEditsFilesInTheProject
	ReasonEditsEveryFileMatching
	ReasonEditsASystemFile
	ReasonEditsSecretsCredentialsOrStart
	ReasonEditsAFileOutsideThe
	ReasonEditsADotfileOrHidden
	ReasonEditsAFileInThe
	ReasonReadsAFileOutsideThe
	ReasonReadsAPathMadeOf
	ReasonReadsADotfile
	ReasonShutsTheMachineDown
	ReasonRebootsTheMachine
	ReasonHaltsTheMachine
	ReasonPowersTheMachineOff
	ReasonMountsFileSystems
	ReasonUnmountsFileSystems
	ReasonTurnsSwapOff
	ReasonTurnsSwapOn
	ReasonLoadsKernelModules
	ReasonRemovesKernelModules
	ReasonChangesUserAccounts
	ReasonChangesPasswords
	ReasonChangesSudoRights
	ReasonChangesTheFirewall
	ReasonChangesFileAttributes
	ReasonChangesSelinuxEnforcement
	ReasonBootsAnotherKernel
	ReasonDeletesADiskDevice
	ReasonDeletesUnderASystemDirectory
	ReasonDeletesSecretsCredentialsOrStartupFiles
	ReasonDeletesOutsideTheProject
	ReasonChangesADiskDevice
	ReasonChangesUnderASystemDirectory
	ReasonChangesSecretsCredentialsOrStartupFiles
	ReasonChangesOutsideTheProject
	ReasonWritesADiskDevice
	ReasonWritesUnderASystemDirectory
	ReasonWritesSecretsCredentialsOrStartupFiles
	ReasonWritesOutsideTheProject
	ReasonWritesToUnderASystemDirectory
	ReasonWritesToSecretsCredentialsOrStartupFiles
	ReasonWritesToOutsideTheProject
	ReasonNothingRiskyFound
	ReasonProvenReadOnly
	ReasonNotProvenHarmless
	ReasonNoCommandOnlyPatterns
	ReasonOnlyCommandsAutoApproved
	ReasonRunsInAnotherFolder
	ReasonToolCallNotRead
	ReasonMayRunLong
	// reasonCount is one past the last code.
	reasonCount
)

// ReasonCodes returns every reason code Assess can give, so a catalog's
// tests can prove each one is said in every language.
func ReasonCodes() []ReasonCode {
	codes := make([]ReasonCode, 0, reasonCount-1)
	for c := ReasonCode(1); c < reasonCount; c++ {
		codes = append(codes, c)
	}
	return codes
}

// pathVerbKind is what a command does to a path it is given, which picks
// the wording of writePath's reasons.
type pathVerbKind int

const (
	verbDeletes pathVerbKind = iota
	verbChanges
	verbWrites
	verbWritesTo
)

// writePathReasons are writePath's reasons by verb: a disk device, a
// system directory, secrets or start-up files, outside the project.
var writePathReasons = [...][4]ReasonCode{
	verbDeletes:  {ReasonDeletesADiskDevice, ReasonDeletesUnderASystemDirectory, ReasonDeletesSecretsCredentialsOrStartupFiles, ReasonDeletesOutsideTheProject},
	verbChanges:  {ReasonChangesADiskDevice, ReasonChangesUnderASystemDirectory, ReasonChangesSecretsCredentialsOrStartupFiles, ReasonChangesOutsideTheProject},
	verbWrites:   {ReasonWritesADiskDevice, ReasonWritesUnderASystemDirectory, ReasonWritesSecretsCredentialsOrStartupFiles, ReasonWritesOutsideTheProject},
	verbWritesTo: {ReasonWritesToADiskDevice, ReasonWritesToUnderASystemDirectory, ReasonWritesToSecretsCredentialsOrStartupFiles, ReasonWritesToOutsideTheProject},
}
