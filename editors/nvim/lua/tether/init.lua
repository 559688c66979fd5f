-- Tether for Neovim: starts `tether lsp` for buffers inside git repositories and adds
-- :TetherAdd, :TetherStale and :TetherHistory. Hovers, code lenses, diagnostics and code actions
-- come from the server through Neovim's own LSP client.
--
-- Neovim 0.10+ is the target (vim.lsp.start). 0.8 and 0.9 use vim.lsp.start as well; 0.7 falls
-- back to vim.lsp.start_client + buf_attach_client, with one client per repository kept here.

local M = {}

M.categories = { 'pattern', 'security', 'architecture', 'preference', 'error', 'general' }

local defaults = {
  cmd = { 'tether', 'lsp' },
  -- nil: every file buffer; or a list of filetypes.
  filetypes = nil,
  -- Sent as initializationOptions (debounceMs, maxFileBytes, codeLens, watch).
  init_options = {},
  -- Refresh code lenses on these events (Neovim does not request them by itself).
  codelens_events = { 'BufEnter', 'CursorHold', 'InsertLeave', 'BufWritePost' },
  default_category = 'general',
  on_attach = nil,
}

M.config = vim.deepcopy(defaults)
local clients_by_root = {} -- 0.7 only: root -> client id

local function has(version)
  return vim.fn.has('nvim-' .. version) == 1
end

-- client:request on 0.11+, client.request before (the dot form is deprecated there).
local function request(client, method, params, handler, bufnr)
  if has('0.11') then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function notify(msg, level)
  vim.notify('tether: ' .. msg, level or vim.log.levels.INFO)
end

--- The repository root containing `path`, or nil.
function M.git_root(path)
  if path == nil or path == '' then
    return nil
  end
  local dir = vim.fn.fnamemodify(path, ':p:h')
  -- `.git` is a directory in a clone and a file in a worktree.
  local git_dir = vim.fn.finddir('.git', dir .. ';')
  local git_file = vim.fn.findfile('.git', dir .. ';')
  local found = git_dir ~= '' and git_dir or git_file
  if found == '' then
    return nil
  end
  return vim.fn.fnamemodify(found, ':p:h:h'):gsub('/$', '')
end

local function tether_clients(bufnr)
  local out = {}
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  local list = has('0.10') and get({ bufnr = bufnr, name = 'tether' }) or vim.lsp.buf_get_clients(bufnr)
  for _, client in pairs(list) do
    if client.name == 'tether' then
      table.insert(out, client)
    end
  end
  return out
end

--- The tether client attached to `bufnr` (0: current), or nil.
function M.client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  return tether_clients(bufnr)[1]
end

local function on_attach(client, bufnr)
  if M.config.init_options.codeLens ~= false and #M.config.codelens_events > 0 then
    local group = vim.api.nvim_create_augroup('tether_codelens_' .. bufnr, { clear = true })
    vim.api.nvim_create_autocmd(M.config.codelens_events, {
      group = group,
      buffer = bufnr,
      callback = function()
        if has('0.10') then
          pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
        else
          pcall(vim.lsp.codelens.refresh)
        end
      end,
    })
    if has('0.10') then
      pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
    else
      pcall(vim.lsp.codelens.refresh)
    end
  end
  if M.config.on_attach then
    M.config.on_attach(client, bufnr)
  end
end

--- Start (or reuse) the server for `bufnr` if its file is inside a git repository.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if vim.bo[bufnr].buftype ~= '' then
    return nil
  end
  local ft = vim.bo[bufnr].filetype
  if M.config.filetypes and not vim.tbl_contains(M.config.filetypes, ft) then
    return nil
  end
  local root = M.git_root(vim.api.nvim_buf_get_name(bufnr))
  if root == nil then
    return nil
  end
  local config = {
    name = 'tether',
    cmd = M.config.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = M.config.init_options,
    on_attach = on_attach,
  }
  if vim.lsp.start then
    return vim.lsp.start(config, { bufnr = bufnr })
  end
  -- Neovim 0.7: no vim.lsp.start; start one client per repository and attach buffers to it.
  local id = clients_by_root[root]
  if id == nil or vim.lsp.get_client_by_id(id) == nil then
    id = vim.lsp.start_client(config)
    if id == nil then
      notify('could not start ' .. table.concat(M.config.cmd, ' '), vim.log.levels.ERROR)
      return nil
    end
    clients_by_root[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

--- Run a server command; `callback(result)` gets the answer. Errors are shown by the server.
function M.execute(name, args, callback, bufnr)
  local client = M.client(bufnr)
  if client == nil then
    notify('the language server is not running for this buffer', vim.log.levels.WARN)
    return
  end
  request(client, 'workspace/executeCommand', { command = name, arguments = { args } }, function(err, result)
    if err then
      -- The server has shown the reason (window/showMessage); keep a trace in :messages.
      vim.schedule(function()
        vim.api.nvim_echo({ { 'tether: ' .. (err.message or tostring(err)), 'ErrorMsg' } }, true, {})
      end)
      return
    end
    if callback then
      vim.schedule(function()
        callback(result)
      end)
    end
  end, bufnr)
end

--- Show server-rendered markdown in a scratch split (plain text: nothing is executed).
function M.show_markdown(markdown, title)
  local buf = vim.api.nvim_create_buf(false, true)
  local lines = vim.split(markdown or '', '\n', { plain = true })
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].filetype = 'markdown'
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  pcall(vim.api.nvim_buf_set_name, buf, 'tether://' .. (title or 'learnings') .. '/' .. buf)
  vim.cmd('botright split')
  vim.api.nvim_win_set_buf(0, buf)
  vim.api.nvim_win_set_height(0, math.min(#lines + 1, 20))
  M.last_shown = markdown
  return buf
end

local function command_args(command)
  local args = command.arguments or {}
  return args[1] or {}
end

-- Client-side handlers for the commands code lenses and code actions send: the answer of these
-- is for a person, and "Invalidate…" needs a reason.
local function register_client_commands()
  vim.lsp.commands['tether.showLearnings'] = function(command, ctx)
    M.execute('tether.showLearnings', command_args(command), function(result)
      M.show_markdown(result and result.markdown or 'No learnings here.', 'learnings')
    end, ctx and ctx.bufnr)
  end
  vim.lsp.commands['tether.showHistory'] = function(command, ctx)
    M.execute('tether.showHistory', command_args(command), function(result)
      M.show_markdown(result and result.markdown or '', 'history')
    end, ctx and ctx.bufnr)
  end
  vim.lsp.commands['tether.invalidate'] = function(command, ctx)
    local args = vim.deepcopy(command_args(command))
    vim.ui.input({ prompt = 'Why does this learning no longer hold? ' }, function(reason)
      if reason == nil or reason == '' then
        return
      end
      args.reason = reason
      M.execute('tether.invalidate', args, function()
        notify('learning ' .. tostring(args.id) .. ' invalidated')
      end, ctx and ctx.bufnr)
    end)
  end
end

--- :TetherAdd [text]: a learning on the symbol under the cursor, or on the given line range.
function M.add(text, line1, line2, ranged, category)
  local bufnr = vim.api.nvim_get_current_buf()
  local function send(body, cat)
    local params
    if ranged then
      params = { start = { line = line1 - 1, character = 0 }, ['end'] = { line = line2, character = 0 } }
    end
    local cursor = vim.api.nvim_win_get_cursor(0)
    local args = {
      uri = vim.uri_from_bufnr(bufnr),
      text = body,
      category = cat,
    }
    if params then
      args.range = params
    else
      args.position = { line = cursor[1] - 1, character = cursor[2] }
    end
    M.execute('tether.add', args, function(result)
      notify('added ' .. tostring(result and result.id) .. ' on ' .. table.concat(result and result.anchors or {}, ', '))
    end, bufnr)
  end
  if text and text ~= '' then
    send(text, category or M.config.default_category)
    return
  end
  vim.ui.input({ prompt = 'Learning: ' }, function(body)
    if body == nil or body == '' then
      return
    end
    vim.ui.select(M.categories, { prompt = 'Category' }, function(choice)
      send(body, choice or M.config.default_category)
    end)
  end)
end

--- :TetherStale: every learning in the repository that needs a look, in the quickfix list.
function M.stale()
  M.execute('tether.staleCheck', { uri = vim.uri_from_bufnr(0) }, function(result)
    local items = {}
    for _, item in ipairs(result and result.items or {}) do
      table.insert(items, {
        filename = vim.uri_to_fname(item.uri),
        lnum = (item.line or 0) + 1,
        col = 1,
        text = string.format('[%s] %s %s', item.verdict, item.message, item.detail or ''),
      })
    end
    vim.fn.setqflist({}, ' ', { title = 'Tether: stale learnings', items = items })
    if #items == 0 then
      notify('every anchored learning is fresh')
    else
      vim.cmd('copen')
    end
  end)
end

--- :TetherHistory: the history of the learning under the cursor (asks which when there are several).
function M.history()
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  M.execute('tether.showLearnings', { uri = vim.uri_from_bufnr(0), line = line }, function(result)
    local learnings = result and result.learnings or {}
    if #learnings == 0 then
      notify('no learning on this line')
      return
    end
    local function show(choice)
      if choice then
        vim.lsp.commands['tether.showHistory']({ arguments = { { id = choice.id } } }, {})
      end
    end
    if #learnings == 1 then
      show(learnings[1])
    else
      vim.ui.select(learnings, {
        prompt = 'Which learning?',
        format_item = function(item)
          return string.format('%s [%s] %s', item.id:sub(1, 8), item.verdict or item.status, item.text:sub(1, 60))
        end,
      }, show)
    end
  end)
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  register_client_commands()
  local group = vim.api.nvim_create_augroup('tether', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'FileType' }, {
    group = group,
    callback = function(ev)
      M.attach(ev.buf)
    end,
  })
  vim.api.nvim_create_user_command('TetherAdd', function(c)
    M.add(c.args, c.line1, c.line2, c.range > 0)
  end, { nargs = '*', range = true, desc = 'Add a learning on the symbol under the cursor or the selected lines' })
  vim.api.nvim_create_user_command('TetherStale', M.stale, { desc = 'List learnings whose code changed' })
  vim.api.nvim_create_user_command('TetherHistory', M.history, { desc = 'History of the learning under the cursor' })
  -- Buffers already open when setup runs.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.api.nvim_buf_get_name(buf) ~= '' then
      M.attach(buf)
    end
  end
end

return M
