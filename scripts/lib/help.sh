# Sourced by every shell script first, before it changes anything:
# `. "$(dirname "$0")/lib/help.sh" "$@"` (scripts/test.d: ../lib/help.sh).
# With -h or --help among the arguments, prints the script's usage on stdout
# and exits 0; otherwise does nothing. The usage is the script's leading
# comment block (from the line after #! to the first line that is not a
# comment), after a "Usage: SCRIPT" line when the block has none (a script
# that takes no arguments, such as the steps of scripts/test.d).
for emcp_help_arg in "$@"; do
  case "$emcp_help_arg" in
    -h|--help)
      emcp_help_text=$(sed -n '2,${/^#/!q;s/^# \{0,1\}//;p}' "$0")
      case "$emcp_help_text" in
        *Usage:*) ;;
        *) echo "Usage: $0 (takes no arguments)"; echo ;;
      esac
      printf '%s\n' "$emcp_help_text"
      exit 0 ;;
  esac
done
unset emcp_help_arg
