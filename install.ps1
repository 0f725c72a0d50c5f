# install.ps1: installs aidex and its helpers aidex-chat, aidex-sandbox and aidex-nats on Windows
# from a release archive, without Go. Details: docs/install.md.
#
#   irm https://github.com/zelvior/aidex/releases/latest/download/install.ps1 | iex
#
# It downloads aidex-windows-ARCH.zip (amd64 or arm64) and SHA256SUMS from
# $env:AIDEX_INSTALL_BASE (default: the latest release), refuses the archive
# unless Get-FileHash gives the SHA-256 SHA256SUMS lists, and only then
# unpacks it and installs aidex.exe, aidex-chat.exe, aidex-sandbox.exe and aidex-nats.exe into
# $env:AIDEX_INSTALL_DIR, default ~\.local\bin (the folder install.sh uses).
$ErrorActionPreference = 'Stop'

$Base = if ($env:AIDEX_INSTALL_BASE) { $env:AIDEX_INSTALL_BASE } else { 'https://github.com/zelvior/aidex/releases/latest/download' }
$Dir = if ($env:AIDEX_INSTALL_DIR) { $env:AIDEX_INSTALL_DIR } else { Join-Path $HOME '.local\bin' }

$Cpu = if ($env:PROCESSOR_ARCHITEW6432) { $env:PROCESSOR_ARCHITEW6432 } else { $env:PROCESSOR_ARCHITECTURE }
$Arch = switch ($Cpu) {
    'AMD64' { 'amd64' }
    'ARM64' { 'arm64' }
    default { throw "install.ps1: no release for Windows on $Cpu; build from source (go install ./cmd/... in a clone, docs/install.md)" }
}
$Name = "aidex-windows-$Arch"
$Archive = "$Name.zip"

$Tmp = Join-Path ([IO.Path]::GetTempPath()) ("aidex-install-" + [Guid]::NewGuid())
New-Item -ItemType Directory -Path $Tmp | Out-Null
try {
    Write-Host "downloading $Archive from $Base"
    Invoke-WebRequest -UseBasicParsing -Uri "$Base/SHA256SUMS" -OutFile (Join-Path $Tmp 'SHA256SUMS')
    Invoke-WebRequest -UseBasicParsing -Uri "$Base/$Archive" -OutFile (Join-Path $Tmp $Archive)

    $Want = $null
    foreach ($Line in Get-Content (Join-Path $Tmp 'SHA256SUMS')) {
        $Fields = -split $Line
        if ($Fields.Count -eq 2 -and ($Fields[1] -eq $Archive -or $Fields[1] -eq "*$Archive")) { $Want = $Fields[0].ToLower(); break }
    }
    if ($Want -notmatch '^[0-9a-f]{64}$') { throw "install.ps1: $Base/SHA256SUMS lists no SHA-256 for $Archive; refusing to install" }
    $Got = (Get-FileHash -Algorithm SHA256 -Path (Join-Path $Tmp $Archive)).Hash.ToLower()
    if ($Got -ne $Want) { throw "install.ps1: checksum mismatch for ${Archive}: SHA256SUMS says $Want, the download is $Got; refusing to install" }

    Expand-Archive -Path (Join-Path $Tmp $Archive) -DestinationPath (Join-Path $Tmp 'x')
    New-Item -ItemType Directory -Force -Path $Dir | Out-Null
    foreach ($Exe in 'aidex.exe', 'aidex-chat.exe', 'aidex-sandbox.exe', 'aidex-nats.exe') {
        Copy-Item -Force -Path (Join-Path $Tmp "x\$Name\$Exe") -Destination (Join-Path $Dir $Exe)
    }
    Write-Host "installed $(& (Join-Path $Dir 'aidex.exe') --version) into $Dir"
    if (($env:Path -split ';') -notcontains $Dir) {
        Write-Host "$Dir is not on your PATH: add it for your user with"
        Write-Host "  [Environment]::SetEnvironmentVariable('Path', `"$Dir;`" + [Environment]::GetEnvironmentVariable('Path', 'User'), 'User')"
        Write-Host "and open a new terminal."
    }
} finally {
    Remove-Item -Recurse -Force -Path $Tmp -ErrorAction SilentlyContinue
}
