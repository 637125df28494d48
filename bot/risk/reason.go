package risk

import "strings"

// ReasonCode names one kind of reason AssessRisk gives, so a catalog can
// say it in its own language (Text.RiskReason). The zero value is no reason.
type ReasonCode int

// Reason is one reason of a risk assessment: its code, and the detail
// (a command, a path, a list) that the reason's text quotes verbatim.
type Reason struct {
	Code ReasonCode
	Arg  string
}

// English is the reason as Assessment.Reasons gives it.
func (r Reason) English() string { return englishReason(r.Code, r.Arg) }

// Chinese is the reason in simplified Chinese; commands, options and
// paths in it stay as they are.
func (r Reason) Chinese() string { return chineseReason(r.Code, r.Arg) }

// The reason codes. They are unexported: only AssessRisk makes them, and
// only the catalogs need to tell them apart.
const (
	_ ReasonCode = iota
	reasonNoCommandGiven
	reasonEditsFilesWhichOnesWas
	reasonReadsFilesWhichOnesWas
	reasonReadsFilesInTheProject
	reasonLooksAtTheProject
	reasonWorksOutsideTheProjectDirectory
	reasonFetchesAWebPage
	reasonSearchesTheWeb
	reasonStartsASubagent
	reasonTheAgentKeepsRepeatingThe
	reasonPermissionKindNotGiven
	reasonUnknownPermissionKind
	reasonNestsCommandsTooDeeplyTo
	reasonEmptyCommand
	reasonForkBomb
	reasonDefinesAShellFunction
	reasonOpensARawNetworkConnection
	reasonCouldNotReadTheWhole
	reasonChainsSeveralCommands
	reasonPipesOutputIntoAnotherCommand
	reasonRunsACommandInThe
	reasonRunsCommandsInASubshell
	reasonUsesCommandSubstitution
	reasonNoCommandFound
	reasonInjectsLibrariesIntoAProgram
	reasonSetsEnvironmentVariables
	reasonRunsAsAnotherUser
	reasonLooksUpACommand
	reasonPrintsEnvironmentVariablesWhichMay
	reasonEchoesItsInput
	reasonUnknownCommand
	reasonRunsACommandForEach
	reasonTouchesSecretsOrCredentials
	reasonUsesEval
	reasonRunsAScriptInThe
	reasonDeletesFiles
	reasonFormatsAFileSystem
	reasonWritesRawDataToDisks
	reasonChangesTheRunLevel
	reasonDeletesTheCrontabCrontabR
	reasonChangesScheduledJobsCrontab
	reasonDownloadsOrSendsDataOver
	reasonConnectsToAnotherMachine
	reasonDeletesFilesWhileSyncingRsync
	reasonCopiesFilesRsync
	reasonEditsFilesInPlaceSed
	reasonReadOnlyCommandSed
	reasonSedScriptMayWriteFiles
	reasonAwkProgramRunsCommandsOr
	reasonReadOnlyCommandAwk
	reasonChangesShellVariablesOptionsOr
	reasonWritesFiles
	reasonClearsTheShellHistory
	reasonChangesOrWritesTheShell
	reasonReadOnlyCommandHistory
	reasonReadOnlyCommand
	reasonRunsTheOutputOfAnother
	reasonRunsACommandNamedBy
	reasonReadsAHereDocument
	reasonExpandsAVariable
	reasonReadsOutsideTheProject
	reasonUsesBraceExpansion
	reasonMatchesHiddenFilesWithA
	reasonReadsADotfileOrHidden
	reasonWritesFilesOrRunsPrograms
	reasonWritesItsOutputToA
	reasonSetsTheHostName
	reasonRunsLessCommandsLess
	reasonContactsARemoteGitLs
	reasonReadsEnvironmentVariablesWhichMay
	reasonReadsSecretsOrCredentials
	reasonRedirectsInput
	reasonRedirectsOutput
	reasonWritesToADiskDevice
	reasonRedirectsOutputIntoAFile
	reasonDeletesWithoutProtectingRmNo
	reasonDeletesFilesRecursivelyAndWithout
	reasonDeletesFilesRecursivelyRmR
	reasonDeletesFilesRm
	reasonDeletesABroadPath
	reasonDeletesEveryFileFoundFind
	reasonRunsACommandForEach2
	reasonWritesAFileFind
	reasonReadOnlyCommandFind
	reasonReadOnlyCommandGit
	reasonRewritesOrDeletesRemoteHistory
	reasonPushesToARemoteGit
	reasonDiscardsLocalChangesGitReset
	reasonMovesTheBranchGitReset
	reasonDeletesUntrackedFilesGitClean
	reasonCleansTheWorkTreeGit
	reasonDiscardsLocalChangesGit
	reasonChangesTheWorkTreeGit
	reasonForceDeletesABranchGit
	reasonReadOnlyCommandGitBranch
	reasonChangesBranchesGitBranch
	reasonReadOnlyCommandGitTag
	reasonChangesTagsGitTag
	reasonReadOnlyCommandGitRemote
	reasonChangesRemotesGitRemote
	reasonReadOnlyCommandGitConfig
	reasonChangesGitConfigurationGitConfig
	reasonReadOnlyCommandGitStash
	reasonThrowsStashedChangesAwayGit
	reasonStashesChangesGitStash
	reasonDeletesReflogEntriesGitReflog
	reasonReadOnlyCommandGitReflog
	reasonRewritesRepositoryHistoryGit
	reasonDeletesUnreachableObjectsGit
	reasonRepacksTheRepositoryGitGc
	reasonReadOnlyCommandGitWorktree
	reasonChangesWorkTreesGitWorktree
	reasonReadOnlyCommandGit2
	reasonChangesTheRepositoryGit
	reasonSetsTheSetuidOrSetgid
	reasonChangesOwnershipOrPermissionsRecursively
	reasonChangesOwnershipOrPermissionsRecursively2
	reasonChangesOwnershipOrPermissions
	reasonKillsInitOrEveryProcess
	reasonStopsProcesses
	reasonChangesKernelSettingsSysctl
	reasonReadOnlyCommandSysctl
	reasonChangesSystemServicesOrSettings
	reasonRunsAContainerWithHost
	reasonDeletesContainersImagesOrCluster
	reasonPublishesAnImagePush
	reasonRunsContainersOrClusterCommands
	reasonPublishesOrChangesSomethingPublic
	reasonRemovesInstalledPackages
	reasonChangesGoSettingsGoEnv
	reasonReadOnlyCommandGo
	reasonRuns
	reasonRunsACommandThroughA
	reasonPipesTextIntoAShell
	reasonRunsAHereDocumentThrough
	reasonRunsGeneratedOrDownloadedText
	reasonRunsAScript
	reasonStartsAShell
	reasonRunsTheOutputOfAnother2
	reasonRunsInlineCode
	reasonEditsFilesInPlacePerl
	reasonPipesTextIntoAnInterpreter
	reasonRunsGeneratedOrDownloadedCode
	reasonRunsInlineCodeFromA
	reasonRunsAProgram
	reasonEditsFilesInTheProject
	reasonEditsEveryFileMatching
	reasonEditsASystemFile
	reasonEditsSecretsCredentialsOrStart
	reasonEditsAFileOutsideThe
	reasonEditsADotfileOrHidden
	reasonEditsAFileInThe
	reasonReadsAFileOutsideThe
	reasonReadsAPathMadeOf
	reasonReadsADotfile
	reasonShutsTheMachineDown
	reasonRebootsTheMachine
	reasonHaltsTheMachine
	reasonPowersTheMachineOff
	reasonMountsFileSystems
	reasonUnmountsFileSystems
	reasonTurnsSwapOff
	reasonTurnsSwapOn
	reasonLoadsKernelModules
	reasonRemovesKernelModules
	reasonChangesUserAccounts
	reasonChangesPasswords
	reasonChangesSudoRights
	reasonChangesTheFirewall
	reasonChangesFileAttributes
	reasonChangesSelinuxEnforcement
	reasonBootsAnotherKernel
	reasonDeletesADiskDevice
	reasonDeletesUnderASystemDirectory
	reasonDeletesSecretsCredentialsOrStartupFiles
	reasonDeletesOutsideTheProject
	reasonChangesADiskDevice
	reasonChangesUnderASystemDirectory
	reasonChangesSecretsCredentialsOrStartupFiles
	reasonChangesOutsideTheProject
	reasonWritesADiskDevice
	reasonWritesUnderASystemDirectory
	reasonWritesSecretsCredentialsOrStartupFiles
	reasonWritesOutsideTheProject
	reasonWritesToUnderASystemDirectory
	reasonWritesToSecretsCredentialsOrStartupFiles
	reasonWritesToOutsideTheProject
	reasonNothingRiskyFound
	reasonProvenReadOnly
	reasonNotProvenHarmless
	reasonNoCommandOnlyPatterns
	reasonOnlyCommandsAutoApproved
	// reasonCount is one past the last code; the catalog tests walk
	// every code below it.
	reasonCount
)

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
	verbDeletes:  {reasonDeletesADiskDevice, reasonDeletesUnderASystemDirectory, reasonDeletesSecretsCredentialsOrStartupFiles, reasonDeletesOutsideTheProject},
	verbChanges:  {reasonChangesADiskDevice, reasonChangesUnderASystemDirectory, reasonChangesSecretsCredentialsOrStartupFiles, reasonChangesOutsideTheProject},
	verbWrites:   {reasonWritesADiskDevice, reasonWritesUnderASystemDirectory, reasonWritesSecretsCredentialsOrStartupFiles, reasonWritesOutsideTheProject},
	verbWritesTo: {reasonWritesToADiskDevice, reasonWritesToUnderASystemDirectory, reasonWritesToSecretsCredentialsOrStartupFiles, reasonWritesToOutsideTheProject},
}

// fillReason puts arg where template has %s. It is not fmt: an argument
// is a command or a path and may hold % itself.
func fillReason(template, arg string) string {
	return strings.Replace(template, "%s", arg, 1)
}

func englishReason(code ReasonCode, arg string) string {
	if t, ok := reasonEnglish[code]; ok {
		return fillReason(t, arg)
	}
	return "unknown reason"
}

func chineseReason(code ReasonCode, arg string) string {
	if t, ok := reasonChinese[code]; ok {
		return fillReason(t, arg)
	}
	return "未知原因"
}

var reasonEnglish = map[ReasonCode]string{
	reasonNoCommandGiven:                            "no command given",
	reasonEditsFilesWhichOnesWas:                    "edits files (which ones was not said)",
	reasonReadsFilesWhichOnesWas:                    "reads files (which ones was not said)",
	reasonReadsFilesInTheProject:                    "reads files in the project",
	reasonLooksAtTheProject:                         "looks at the project (%s)",
	reasonWorksOutsideTheProjectDirectory:           "works outside the project directory%s",
	reasonFetchesAWebPage:                           "fetches a web page%s",
	reasonSearchesTheWeb:                            "searches the web",
	reasonStartsASubagent:                           "starts a subagent%s",
	reasonTheAgentKeepsRepeatingThe:                 "the agent keeps repeating the same tool call",
	reasonPermissionKindNotGiven:                    "permission kind not given",
	reasonUnknownPermissionKind:                     "unknown permission kind %s",
	reasonNestsCommandsTooDeeplyTo:                  "nests commands too deeply to follow",
	reasonEmptyCommand:                              "empty command",
	reasonForkBomb:                                  "fork bomb",
	reasonDefinesAShellFunction:                     "defines a shell function",
	reasonOpensARawNetworkConnection:                "opens a raw network connection (/dev/tcp)",
	reasonCouldNotReadTheWhole:                      "could not read the whole command (unbalanced quotes or brackets)",
	reasonChainsSeveralCommands:                     "chains several commands",
	reasonPipesOutputIntoAnotherCommand:             "pipes output into another command",
	reasonRunsACommandInThe:                         "runs a command in the background",
	reasonRunsCommandsInASubshell:                   "runs commands in a subshell",
	reasonUsesCommandSubstitution:                   "uses command substitution",
	reasonNoCommandFound:                            "no command found",
	reasonInjectsLibrariesIntoAProgram:              "injects libraries into a program (%s)",
	reasonSetsEnvironmentVariables:                  "sets environment variables (%s)",
	reasonRunsAsAnotherUser:                         "runs as another user (%s)",
	reasonLooksUpACommand:                           "looks up a command",
	reasonPrintsEnvironmentVariablesWhichMay:        "prints environment variables, which may hold secrets",
	reasonEchoesItsInput:                            "echoes its input",
	reasonUnknownCommand:                            "unknown command %s",
	reasonRunsACommandForEach:                       "runs a command for each input line (%s)",
	reasonTouchesSecretsOrCredentials:               "touches secrets or credentials (%s)",
	reasonUsesEval:                                  "uses eval",
	reasonRunsAScriptInThe:                          "runs a script in the current shell",
	reasonDeletesFiles:                              "deletes files (%s)",
	reasonFormatsAFileSystem:                        "formats a file system (%s)",
	reasonWritesRawDataToDisks:                      "writes raw data to disks or files (%s)",
	reasonChangesTheRunLevel:                        "changes the run level (%s)",
	reasonDeletesTheCrontabCrontabR:                 "deletes the crontab (crontab -r)",
	reasonChangesScheduledJobsCrontab:               "changes scheduled jobs (crontab)",
	reasonDownloadsOrSendsDataOver:                  "downloads or sends data over the network (%s)",
	reasonConnectsToAnotherMachine:                  "connects to another machine (%s)",
	reasonDeletesFilesWhileSyncingRsync:             "deletes files while syncing (rsync --delete)",
	reasonCopiesFilesRsync:                          "copies files (rsync)",
	reasonEditsFilesInPlaceSed:                      "edits files in place (sed -i)",
	reasonReadOnlyCommandSed:                        "read-only command (sed)",
	reasonSedScriptMayWriteFiles:                    "sed script may write files or run commands",
	reasonAwkProgramRunsCommandsOr:                  "awk program runs commands or writes files",
	reasonReadOnlyCommandAwk:                        "read-only command (awk)",
	reasonChangesShellVariablesOptionsOr:            "changes shell variables, options or aliases (%s)",
	reasonWritesFiles:                               "writes files (%s)",
	reasonClearsTheShellHistory:                     "clears the shell history",
	reasonChangesOrWritesTheShell:                   "changes or writes the shell history",
	reasonReadOnlyCommandHistory:                    "read-only command (history)",
	reasonReadOnlyCommand:                           "read-only command (%s)",
	reasonRunsTheOutputOfAnother:                    "runs the output of another command as a command",
	reasonRunsACommandNamedBy:                       "runs a command named by a variable (%s)",
	reasonReadsAHereDocument:                        "reads a here-document",
	reasonExpandsAVariable:                          "expands a variable (%s)",
	reasonReadsOutsideTheProject:                    "reads outside the project (%s)",
	reasonUsesBraceExpansion:                        "uses brace expansion (%s)",
	reasonMatchesHiddenFilesWithA:                   "matches hidden files with a wildcard (%s)",
	reasonReadsADotfileOrHidden:                     "reads a dotfile or hidden directory (%s)",
	reasonWritesFilesOrRunsPrograms:                 "writes files or runs programs (%s)",
	reasonWritesItsOutputToA:                        "writes its output to a file (%s)",
	reasonSetsTheHostName:                           "sets the host name",
	reasonRunsLessCommandsLess:                      "runs less commands (less +…)",
	reasonContactsARemoteGitLs:                      "contacts a remote (git ls-remote)",
	reasonReadsEnvironmentVariablesWhichMay:         "reads environment variables, which may hold secrets (jq)",
	reasonReadsSecretsOrCredentials:                 "reads secrets or credentials (%s)",
	reasonRedirectsInput:                            "redirects input (%s)",
	reasonRedirectsOutput:                           "redirects output (%s)",
	reasonWritesToADiskDevice:                       "writes to a disk device (%s)",
	reasonRedirectsOutputIntoAFile:                  "redirects output into a file (%s)",
	reasonDeletesWithoutProtectingRmNo:              "deletes without protecting / (rm --no-preserve-root)",
	reasonDeletesFilesRecursivelyAndWithout:         "deletes files recursively and without asking (rm -rf)",
	reasonDeletesFilesRecursivelyRmR:                "deletes files recursively (rm -r)",
	reasonDeletesFilesRm:                            "deletes files (rm)",
	reasonDeletesABroadPath:                         "deletes a broad path (%s)",
	reasonDeletesEveryFileFoundFind:                 "deletes every file found (find -delete)",
	reasonRunsACommandForEach2:                      "runs a command for each file found (find %s)",
	reasonWritesAFileFind:                           "writes a file (find %s)",
	reasonReadOnlyCommandFind:                       "read-only command (find)",
	reasonReadOnlyCommandGit:                        "read-only command (git)",
	reasonRewritesOrDeletesRemoteHistory:            "rewrites or deletes remote history (git push --force)",
	reasonPushesToARemoteGit:                        "pushes to a remote (git push)",
	reasonDiscardsLocalChangesGitReset:              "discards local changes (git reset --hard)",
	reasonMovesTheBranchGitReset:                    "moves the branch (git reset)",
	reasonDeletesUntrackedFilesGitClean:             "deletes untracked files (git clean -f)",
	reasonCleansTheWorkTreeGit:                      "cleans the work tree (git clean)",
	reasonDiscardsLocalChangesGit:                   "discards local changes (git %s)",
	reasonChangesTheWorkTreeGit:                     "changes the work tree (git %s)",
	reasonForceDeletesABranchGit:                    "force-deletes a branch (git branch -D)",
	reasonReadOnlyCommandGitBranch:                  "read-only command (git branch)",
	reasonChangesBranchesGitBranch:                  "changes branches (git branch)",
	reasonReadOnlyCommandGitTag:                     "read-only command (git tag)",
	reasonChangesTagsGitTag:                         "changes tags (git tag)",
	reasonReadOnlyCommandGitRemote:                  "read-only command (git remote)",
	reasonChangesRemotesGitRemote:                   "changes remotes (git remote)",
	reasonReadOnlyCommandGitConfig:                  "read-only command (git config)",
	reasonChangesGitConfigurationGitConfig:          "changes git configuration (git config)",
	reasonReadOnlyCommandGitStash:                   "read-only command (git stash %s)",
	reasonThrowsStashedChangesAwayGit:               "throws stashed changes away (git stash %s)",
	reasonStashesChangesGitStash:                    "stashes changes (git stash)",
	reasonDeletesReflogEntriesGitReflog:             "deletes reflog entries (git reflog %s)",
	reasonReadOnlyCommandGitReflog:                  "read-only command (git reflog)",
	reasonRewritesRepositoryHistoryGit:              "rewrites repository history (git %s)",
	reasonDeletesUnreachableObjectsGit:              "deletes unreachable objects (git %s)",
	reasonRepacksTheRepositoryGitGc:                 "repacks the repository (git gc)",
	reasonReadOnlyCommandGitWorktree:                "read-only command (git worktree list)",
	reasonChangesWorkTreesGitWorktree:               "changes work trees (git worktree)",
	reasonReadOnlyCommandGit2:                       "read-only command (git %s)",
	reasonChangesTheRepositoryGit:                   "changes the repository (git %s)",
	reasonSetsTheSetuidOrSetgid:                     "sets the setuid or setgid bit (chmod)",
	reasonChangesOwnershipOrPermissionsRecursively:  "changes ownership or permissions recursively on a broad path (%s -R)",
	reasonChangesOwnershipOrPermissionsRecursively2: "changes ownership or permissions recursively (%s -R)",
	reasonChangesOwnershipOrPermissions:             "changes ownership or permissions (%s)",
	reasonKillsInitOrEveryProcess:                   "kills init or every process (%s)",
	reasonStopsProcesses:                            "stops processes (%s)",
	reasonChangesKernelSettingsSysctl:               "changes kernel settings (sysctl)",
	reasonReadOnlyCommandSysctl:                     "read-only command (sysctl)",
	reasonChangesSystemServicesOrSettings:           "changes system services or settings (%s)",
	reasonRunsAContainerWithHost:                    "runs a container with host access (%s)",
	reasonDeletesContainersImagesOrCluster:          "deletes containers, images or cluster objects (%s)",
	reasonPublishesAnImagePush:                      "publishes an image (%s push)",
	reasonRunsContainersOrClusterCommands:           "runs containers or cluster commands (%s)",
	reasonPublishesOrChangesSomethingPublic:         "publishes or changes something public (%s)",
	reasonRemovesInstalledPackages:                  "removes installed packages (%s)",
	reasonChangesGoSettingsGoEnv:                    "changes Go settings (go env -w)",
	reasonReadOnlyCommandGo:                         "read-only command (go %s)",
	reasonRuns:                                      "runs %s",
	reasonRunsACommandThroughA:                      "runs a command through a shell (%s -c)",
	reasonPipesTextIntoAShell:                       "pipes text into a shell, which runs it (%s)",
	reasonRunsAHereDocumentThrough:                  "runs a here-document through a shell (%s)",
	reasonRunsGeneratedOrDownloadedText:             "runs generated or downloaded text as a script (%s)",
	reasonRunsAScript:                               "runs a script (%s)",
	reasonStartsAShell:                              "starts a shell (%s)",
	reasonRunsTheOutputOfAnother2:                   "runs the output of another command as code",
	reasonRunsInlineCode:                            "runs inline code (%s)",
	reasonEditsFilesInPlacePerl:                     "edits files in place (perl -i)",
	reasonPipesTextIntoAnInterpreter:                "pipes text into an interpreter, which runs it (%s)",
	reasonRunsGeneratedOrDownloadedCode:             "runs generated or downloaded code (%s)",
	reasonRunsInlineCodeFromA:                       "runs inline code from a here-document (%s)",
	reasonRunsAProgram:                              "runs a program (%s)",
	reasonEditsFilesInTheProject:                    "edits files in the project",
	reasonEditsEveryFileMatching:                    "edits every file matching %s",
	reasonEditsASystemFile:                          "edits a system file (%s)",
	reasonEditsSecretsCredentialsOrStart:            "edits secrets, credentials or start-up files (%s)",
	reasonEditsAFileOutsideThe:                      "edits a file outside the project (%s)",
	reasonEditsADotfileOrHidden:                     "edits a dotfile or hidden directory (%s)",
	reasonEditsAFileInThe:                           "edits a file in the project (%s)",
	reasonReadsAFileOutsideThe:                      "reads a file outside the project (%s)",
	reasonReadsAPathMadeOf:                          "reads a path made of a variable (%s)",
	reasonReadsADotfile:                             "reads a dotfile (%s)",
	reasonShutsTheMachineDown:                       "shuts the machine down (%s)",
	reasonRebootsTheMachine:                         "reboots the machine (%s)",
	reasonHaltsTheMachine:                           "halts the machine (%s)",
	reasonPowersTheMachineOff:                       "powers the machine off (%s)",
	reasonMountsFileSystems:                         "mounts file systems (%s)",
	reasonUnmountsFileSystems:                       "unmounts file systems (%s)",
	reasonTurnsSwapOff:                              "turns swap off (%s)",
	reasonTurnsSwapOn:                               "turns swap on (%s)",
	reasonLoadsKernelModules:                        "loads kernel modules (%s)",
	reasonRemovesKernelModules:                      "removes kernel modules (%s)",
	reasonChangesUserAccounts:                       "changes user accounts (%s)",
	reasonChangesPasswords:                          "changes passwords (%s)",
	reasonChangesSudoRights:                         "changes sudo rights (%s)",
	reasonChangesTheFirewall:                        "changes the firewall (%s)",
	reasonChangesFileAttributes:                     "changes file attributes (%s)",
	reasonChangesSelinuxEnforcement:                 "changes SELinux enforcement (%s)",
	reasonBootsAnotherKernel:                        "boots another kernel (%s)",
	reasonDeletesADiskDevice:                        "deletes a disk device (%s)",
	reasonDeletesUnderASystemDirectory:              "deletes under a system directory (%s)",
	reasonDeletesSecretsCredentialsOrStartupFiles:   "deletes secrets, credentials or start-up files (%s)",
	reasonDeletesOutsideTheProject:                  "deletes outside the project (%s)",
	reasonChangesADiskDevice:                        "changes a disk device (%s)",
	reasonChangesUnderASystemDirectory:              "changes under a system directory (%s)",
	reasonChangesSecretsCredentialsOrStartupFiles:   "changes secrets, credentials or start-up files (%s)",
	reasonChangesOutsideTheProject:                  "changes outside the project (%s)",
	reasonWritesADiskDevice:                         "writes a disk device (%s)",
	reasonWritesUnderASystemDirectory:               "writes under a system directory (%s)",
	reasonWritesSecretsCredentialsOrStartupFiles:    "writes secrets, credentials or start-up files (%s)",
	reasonWritesOutsideTheProject:                   "writes outside the project (%s)",
	reasonWritesToUnderASystemDirectory:             "writes to under a system directory (%s)",
	reasonWritesToSecretsCredentialsOrStartupFiles:  "writes to secrets, credentials or start-up files (%s)",
	reasonWritesToOutsideTheProject:                 "writes to outside the project (%s)",
	reasonNothingRiskyFound:                         "nothing risky found",
	reasonProvenReadOnly:                            "read-only, inside the project: within the auto-approval rules",
	reasonNotProvenHarmless:                         "not within the auto-approval rules: %s",
	reasonNoCommandOnlyPatterns:                     "no command given, only patterns: never auto-approved",
	reasonOnlyCommandsAutoApproved:                  "only shell commands can be auto-approved",
}

// Command names, options and paths stay as they are, untranslated.
var reasonChinese = map[ReasonCode]string{
	reasonNoCommandGiven:                            "未给出命令",
	reasonEditsFilesWhichOnesWas:                    "修改文件（未说明哪些）",
	reasonReadsFilesWhichOnesWas:                    "读取文件（未说明哪些）",
	reasonReadsFilesInTheProject:                    "读取项目内的文件",
	reasonLooksAtTheProject:                         "查看项目（%s）",
	reasonWorksOutsideTheProjectDirectory:           "在项目目录之外操作%s",
	reasonFetchesAWebPage:                           "抓取网页%s",
	reasonSearchesTheWeb:                            "搜索网络",
	reasonStartsASubagent:                           "启动子代理%s",
	reasonTheAgentKeepsRepeatingThe:                 "代理在反复执行同一个工具调用",
	reasonPermissionKindNotGiven:                    "未给出权限类型",
	reasonUnknownPermissionKind:                     "未知的权限类型 %s",
	reasonNestsCommandsTooDeeplyTo:                  "命令嵌套过深，无法追踪",
	reasonEmptyCommand:                              "空命令",
	reasonForkBomb:                                  "fork 炸弹",
	reasonDefinesAShellFunction:                     "定义 shell 函数",
	reasonOpensARawNetworkConnection:                "打开原始网络连接（/dev/tcp）",
	reasonCouldNotReadTheWhole:                      "无法完整解析命令（引号或括号不配对）",
	reasonChainsSeveralCommands:                     "串联了多条命令",
	reasonPipesOutputIntoAnotherCommand:             "将输出通过管道传给另一条命令",
	reasonRunsACommandInThe:                         "在后台运行命令",
	reasonRunsCommandsInASubshell:                   "在子 shell 中运行命令",
	reasonUsesCommandSubstitution:                   "使用命令替换",
	reasonNoCommandFound:                            "未找到命令",
	reasonInjectsLibrariesIntoAProgram:              "向程序注入库（%s）",
	reasonSetsEnvironmentVariables:                  "设置环境变量（%s）",
	reasonRunsAsAnotherUser:                         "以其他用户身份运行（%s）",
	reasonLooksUpACommand:                           "查找命令",
	reasonPrintsEnvironmentVariablesWhichMay:        "打印环境变量，其中可能含有机密",
	reasonEchoesItsInput:                            "回显输入",
	reasonUnknownCommand:                            "未知命令 %s",
	reasonRunsACommandForEach:                       "对每行输入运行命令（%s）",
	reasonTouchesSecretsOrCredentials:               "涉及机密或凭据（%s）",
	reasonUsesEval:                                  "使用 eval",
	reasonRunsAScriptInThe:                          "在当前 shell 中运行脚本",
	reasonDeletesFiles:                              "删除文件（%s）",
	reasonFormatsAFileSystem:                        "格式化文件系统（%s）",
	reasonWritesRawDataToDisks:                      "向磁盘或文件写入原始数据（%s）",
	reasonChangesTheRunLevel:                        "更改运行级别（%s）",
	reasonDeletesTheCrontabCrontabR:                 "删除 crontab（crontab -r）",
	reasonChangesScheduledJobsCrontab:               "更改定时任务（crontab）",
	reasonDownloadsOrSendsDataOver:                  "通过网络下载或发送数据（%s）",
	reasonConnectsToAnotherMachine:                  "连接到另一台机器（%s）",
	reasonDeletesFilesWhileSyncingRsync:             "同步时删除文件（rsync --delete）",
	reasonCopiesFilesRsync:                          "复制文件（rsync）",
	reasonEditsFilesInPlaceSed:                      "就地修改文件（sed -i）",
	reasonReadOnlyCommandSed:                        "只读命令（sed）",
	reasonSedScriptMayWriteFiles:                    "sed 脚本可能写文件或运行命令",
	reasonAwkProgramRunsCommandsOr:                  "awk 程序会运行命令或写文件",
	reasonReadOnlyCommandAwk:                        "只读命令（awk）",
	reasonChangesShellVariablesOptionsOr:            "更改 shell 变量、选项或别名（%s）",
	reasonWritesFiles:                               "写文件（%s）",
	reasonClearsTheShellHistory:                     "清除 shell 历史",
	reasonChangesOrWritesTheShell:                   "更改或写入 shell 历史",
	reasonReadOnlyCommandHistory:                    "只读命令（history）",
	reasonReadOnlyCommand:                           "只读命令（%s）",
	reasonRunsTheOutputOfAnother:                    "把另一条命令的输出当作命令运行",
	reasonRunsACommandNamedBy:                       "运行由变量指定的命令（%s）",
	reasonReadsAHereDocument:                        "读取 here-document",
	reasonExpandsAVariable:                          "展开变量（%s）",
	reasonReadsOutsideTheProject:                    "读取项目之外的内容（%s）",
	reasonUsesBraceExpansion:                        "使用花括号展开（%s）",
	reasonMatchesHiddenFilesWithA:                   "通配符会匹配隐藏文件（%s）",
	reasonReadsADotfileOrHidden:                     "读取点文件或隐藏目录（%s）",
	reasonWritesFilesOrRunsPrograms:                 "写文件或运行程序（%s）",
	reasonWritesItsOutputToA:                        "将输出写入文件（%s）",
	reasonSetsTheHostName:                           "设置主机名",
	reasonRunsLessCommandsLess:                      "运行 less 命令（less +…）",
	reasonContactsARemoteGitLs:                      "访问远程仓库（git ls-remote）",
	reasonReadsEnvironmentVariablesWhichMay:         "读取环境变量，其中可能含有机密（jq）",
	reasonReadsSecretsOrCredentials:                 "读取机密或凭据（%s）",
	reasonRedirectsInput:                            "重定向输入（%s）",
	reasonRedirectsOutput:                           "重定向输出（%s）",
	reasonWritesToADiskDevice:                       "写入磁盘设备（%s）",
	reasonRedirectsOutputIntoAFile:                  "将输出重定向到文件（%s）",
	reasonDeletesWithoutProtectingRmNo:              "删除时不保护 /（rm --no-preserve-root）",
	reasonDeletesFilesRecursivelyAndWithout:         "递归且不经确认地删除文件（rm -rf）",
	reasonDeletesFilesRecursivelyRmR:                "递归删除文件（rm -r）",
	reasonDeletesFilesRm:                            "删除文件（rm）",
	reasonDeletesABroadPath:                         "删除范围很大的路径（%s）",
	reasonDeletesEveryFileFoundFind:                 "删除找到的所有文件（find -delete）",
	reasonRunsACommandForEach2:                      "对找到的每个文件运行命令（find %s）",
	reasonWritesAFileFind:                           "写文件（find %s）",
	reasonReadOnlyCommandFind:                       "只读命令（find）",
	reasonReadOnlyCommandGit:                        "只读命令（git）",
	reasonRewritesOrDeletesRemoteHistory:            "改写或删除远程历史（git push --force）",
	reasonPushesToARemoteGit:                        "推送到远程仓库（git push）",
	reasonDiscardsLocalChangesGitReset:              "丢弃本地修改（git reset --hard）",
	reasonMovesTheBranchGitReset:                    "移动分支（git reset）",
	reasonDeletesUntrackedFilesGitClean:             "删除未跟踪的文件（git clean -f）",
	reasonCleansTheWorkTreeGit:                      "清理工作区（git clean）",
	reasonDiscardsLocalChangesGit:                   "丢弃本地修改（git %s）",
	reasonChangesTheWorkTreeGit:                     "更改工作区（git %s）",
	reasonForceDeletesABranchGit:                    "强制删除分支（git branch -D）",
	reasonReadOnlyCommandGitBranch:                  "只读命令（git branch）",
	reasonChangesBranchesGitBranch:                  "更改分支（git branch）",
	reasonReadOnlyCommandGitTag:                     "只读命令（git tag）",
	reasonChangesTagsGitTag:                         "更改标签（git tag）",
	reasonReadOnlyCommandGitRemote:                  "只读命令（git remote）",
	reasonChangesRemotesGitRemote:                   "更改远程仓库（git remote）",
	reasonReadOnlyCommandGitConfig:                  "只读命令（git config）",
	reasonChangesGitConfigurationGitConfig:          "更改 git 配置（git config）",
	reasonReadOnlyCommandGitStash:                   "只读命令（git stash %s）",
	reasonThrowsStashedChangesAwayGit:               "丢弃暂存的修改（git stash %s）",
	reasonStashesChangesGitStash:                    "暂存修改（git stash）",
	reasonDeletesReflogEntriesGitReflog:             "删除 reflog 记录（git reflog %s）",
	reasonReadOnlyCommandGitReflog:                  "只读命令（git reflog）",
	reasonRewritesRepositoryHistoryGit:              "改写仓库历史（git %s）",
	reasonDeletesUnreachableObjectsGit:              "删除不可达对象（git %s）",
	reasonRepacksTheRepositoryGitGc:                 "重新打包仓库（git gc）",
	reasonReadOnlyCommandGitWorktree:                "只读命令（git worktree list）",
	reasonChangesWorkTreesGitWorktree:               "更改工作树（git worktree）",
	reasonReadOnlyCommandGit2:                       "只读命令（git %s）",
	reasonChangesTheRepositoryGit:                   "更改仓库（git %s）",
	reasonSetsTheSetuidOrSetgid:                     "设置 setuid 或 setgid 位（chmod）",
	reasonChangesOwnershipOrPermissionsRecursively:  "在大范围路径上递归更改所有者或权限（%s -R）",
	reasonChangesOwnershipOrPermissionsRecursively2: "递归更改所有者或权限（%s -R）",
	reasonChangesOwnershipOrPermissions:             "更改所有者或权限（%s）",
	reasonKillsInitOrEveryProcess:                   "杀死 init 或所有进程（%s）",
	reasonStopsProcesses:                            "终止进程（%s）",
	reasonChangesKernelSettingsSysctl:               "更改内核设置（sysctl）",
	reasonReadOnlyCommandSysctl:                     "只读命令（sysctl）",
	reasonChangesSystemServicesOrSettings:           "更改系统服务或设置（%s）",
	reasonRunsAContainerWithHost:                    "运行可访问宿主机的容器（%s）",
	reasonDeletesContainersImagesOrCluster:          "删除容器、镜像或集群对象（%s）",
	reasonPublishesAnImagePush:                      "发布镜像（%s push）",
	reasonRunsContainersOrClusterCommands:           "运行容器或集群命令（%s）",
	reasonPublishesOrChangesSomethingPublic:         "发布或更改公开内容（%s）",
	reasonRemovesInstalledPackages:                  "卸载已安装的软件包（%s）",
	reasonChangesGoSettingsGoEnv:                    "更改 Go 设置（go env -w）",
	reasonReadOnlyCommandGo:                         "只读命令（go %s）",
	reasonRuns:                                      "运行 %s",
	reasonRunsACommandThroughA:                      "通过 shell 运行命令（%s -c）",
	reasonPipesTextIntoAShell:                       "将文本通过管道交给 shell 执行（%s）",
	reasonRunsAHereDocumentThrough:                  "通过 shell 运行 here-document（%s）",
	reasonRunsGeneratedOrDownloadedText:             "把生成或下载的文本当作脚本运行（%s）",
	reasonRunsAScript:                               "运行脚本（%s）",
	reasonStartsAShell:                              "启动 shell（%s）",
	reasonRunsTheOutputOfAnother2:                   "把另一条命令的输出当作代码运行",
	reasonRunsInlineCode:                            "运行内联代码（%s）",
	reasonEditsFilesInPlacePerl:                     "就地修改文件（perl -i）",
	reasonPipesTextIntoAnInterpreter:                "将文本通过管道交给解释器执行（%s）",
	reasonRunsGeneratedOrDownloadedCode:             "运行生成或下载的代码（%s）",
	reasonRunsInlineCodeFromA:                       "运行 here-document 中的内联代码（%s）",
	reasonRunsAProgram:                              "运行程序（%s）",
	reasonEditsFilesInTheProject:                    "修改项目内的文件",
	reasonEditsEveryFileMatching:                    "修改所有匹配 %s 的文件",
	reasonEditsASystemFile:                          "修改系统文件（%s）",
	reasonEditsSecretsCredentialsOrStart:            "修改机密、凭据或启动文件（%s）",
	reasonEditsAFileOutsideThe:                      "修改项目之外的文件（%s）",
	reasonEditsADotfileOrHidden:                     "修改点文件或隐藏目录（%s）",
	reasonEditsAFileInThe:                           "修改项目内的文件（%s）",
	reasonReadsAFileOutsideThe:                      "读取项目之外的文件（%s）",
	reasonReadsAPathMadeOf:                          "读取由变量构成的路径（%s）",
	reasonReadsADotfile:                             "读取点文件（%s）",
	reasonShutsTheMachineDown:                       "关闭机器（%s）",
	reasonRebootsTheMachine:                         "重启机器（%s）",
	reasonHaltsTheMachine:                           "停止机器（%s）",
	reasonPowersTheMachineOff:                       "关闭机器电源（%s）",
	reasonMountsFileSystems:                         "挂载文件系统（%s）",
	reasonUnmountsFileSystems:                       "卸载文件系统（%s）",
	reasonTurnsSwapOff:                              "关闭交换分区（%s）",
	reasonTurnsSwapOn:                               "开启交换分区（%s）",
	reasonLoadsKernelModules:                        "加载内核模块（%s）",
	reasonRemovesKernelModules:                      "移除内核模块（%s）",
	reasonChangesUserAccounts:                       "更改用户账户（%s）",
	reasonChangesPasswords:                          "更改密码（%s）",
	reasonChangesSudoRights:                         "更改 sudo 权限（%s）",
	reasonChangesTheFirewall:                        "更改防火墙（%s）",
	reasonChangesFileAttributes:                     "更改文件属性（%s）",
	reasonChangesSelinuxEnforcement:                 "更改 SELinux 强制模式（%s）",
	reasonBootsAnotherKernel:                        "启动另一个内核（%s）",
	reasonDeletesADiskDevice:                        "删除磁盘设备（%s）",
	reasonDeletesUnderASystemDirectory:              "删除系统目录下的内容（%s）",
	reasonDeletesSecretsCredentialsOrStartupFiles:   "删除机密、凭据或启动文件（%s）",
	reasonDeletesOutsideTheProject:                  "删除项目之外的内容（%s）",
	reasonChangesADiskDevice:                        "更改磁盘设备（%s）",
	reasonChangesUnderASystemDirectory:              "更改系统目录下的内容（%s）",
	reasonChangesSecretsCredentialsOrStartupFiles:   "更改机密、凭据或启动文件（%s）",
	reasonChangesOutsideTheProject:                  "更改项目之外的内容（%s）",
	reasonWritesADiskDevice:                         "写入磁盘设备（%s）",
	reasonWritesUnderASystemDirectory:               "写入系统目录下的内容（%s）",
	reasonWritesSecretsCredentialsOrStartupFiles:    "写入机密、凭据或启动文件（%s）",
	reasonWritesOutsideTheProject:                   "写入项目之外的内容（%s）",
	reasonWritesToUnderASystemDirectory:             "写入系统目录下的内容（%s）",
	reasonWritesToSecretsCredentialsOrStartupFiles:  "写入机密、凭据或启动文件（%s）",
	reasonWritesToOutsideTheProject:                 "写入项目之外的内容（%s）",
	reasonNothingRiskyFound:                         "未发现风险",
	reasonProvenReadOnly:                            "只读，且在项目之内：符合自动批准规则",
	reasonNotProvenHarmless:                         "不符合自动批准规则：%s",
	reasonNoCommandOnlyPatterns:                     "没有给出命令，只有模式：从不自动批准",
	reasonOnlyCommandsAutoApproved:                  "只有 shell 命令可以自动批准",
}
