-- Driven by test_nvim_e2e.py: a person's session in Neovim, headless, recorded to a JSON file.
-- open a file with an anchored learning -> hover -> code lens -> edit the body -> stale
-- diagnostic -> "Still valid" -> diagnostic clears -> a learning added by the CLI shows in hover.
local env = vim.env
local out = { steps = {} }

local function record(key, value)
  out[key] = value
  table.insert(out.steps, key)
end

local function finish()
  local f = io.open(env.TETHER_E2E_OUT, 'w')
  f:write(vim.json and vim.json.encode(out) or vim.fn.json_encode(out))
  f:close()
  vim.cmd('qa!')
end

local function fail(msg)
  out.error = msg
  finish()
end

local has = function(v) return vim.fn.has('nvim-' .. v) == 1 end

local function request_sync(client, method, params, bufnr)
  local resp
  if has('0.11') then
    resp = client:request_sync(method, params, 10000, bufnr)
  else
    resp = client.request_sync(method, params, 10000, bufnr)
  end
  if resp == nil then return nil, 'timeout' end
  return resp.result, resp.err
end

local function tether_diagnostics(bufnr)
  local out_ = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.source == 'tether' then table.insert(out_, d) end
  end
  return out_
end

local ok, err = pcall(function()
  vim.opt.runtimepath:append(env.TETHER_E2E_PLUGIN)
  local tether = require('tether')
  tether.setup({ cmd = { env.TETHER_E2E_PYTHON, '-m', 'lsp_server' }, init_options = { debounceMs = 50 } })
  record('version', tostring(vim.version().major) .. '.' .. tostring(vim.version().minor))
  record('start_api', vim.lsp.start and 'vim.lsp.start' or 'vim.lsp.start_client')

  vim.cmd('edit ' .. vim.fn.fnameescape(env.TETHER_E2E_FILE))
  local bufnr = vim.api.nvim_get_current_buf()
  local client
  if not vim.wait(15000, function()
    client = tether.client(bufnr)
    return client ~= nil and (client.initialized ~= false)
  end, 50) then
    return fail('the server did not attach')
  end
  local published = 0
  local orig = vim.lsp.handlers['textDocument/publishDiagnostics']
  vim.lsp.handlers['textDocument/publishDiagnostics'] = function(e, result, ctx, config)
    published = published + 1
    return orig(e, result, ctx, config)
  end
  local uri = vim.uri_from_bufnr(bufnr)
  local charge = tonumber(env.TETHER_E2E_CHARGE_LINE)

  -- hover inside charge's body
  local hover
  vim.wait(15000, function()
    local result = request_sync(client, 'textDocument/hover', { textDocument = { uri = uri }, position = { line = charge + 1, character = 8 } }, bufnr)
    hover = result
    return result ~= nil
  end, 100)
  record('hover', hover and hover.contents and hover.contents.value or vim.NIL)

  -- code lens, as Neovim shows it (refresh, then the resolved lenses in the buffer)
  vim.lsp.codelens.refresh()
  local lens_title
  vim.wait(10000, function()
    for _, lens in ipairs(vim.lsp.codelens.get(bufnr) or {}) do
      if lens.command and lens.command.title and lens.command.title ~= '' then
        lens_title = lens.command.title
        return true
      end
    end
    vim.lsp.codelens.refresh()
    return false
  end, 200)
  record('lens', lens_title or vim.NIL)

  -- edit the function body (unsaved): `amount + 1` -> `amount + 2`
  local line = vim.api.nvim_buf_get_lines(bufnr, charge + 1, charge + 2, false)[1]
  local col = line:find('1', 1, true) - 1
  vim.api.nvim_buf_set_text(bufnr, charge + 1, col, charge + 1, col + 1, { '2' })
  local stale
  vim.wait(15000, function()
    stale = tether_diagnostics(bufnr)[1]
    return stale ~= nil
  end, 50)
  if not stale then return fail('no stale diagnostic after the edit') end
  record('stale', { message = stale.message, lnum = stale.lnum, code = stale.code or (stale.user_data and stale.user_data.lsp and stale.user_data.lsp.code) })

  -- "Still valid": the code actions Neovim would list for that diagnostic, then the chosen one
  local lsp_diag = (stale.user_data and stale.user_data.lsp) or {}
  lsp_diag = vim.tbl_extend('force', {
    range = { start = { line = stale.lnum, character = stale.col }, ['end'] = { line = stale.end_lnum or stale.lnum, character = stale.end_col or stale.col } },
    message = stale.message, source = stale.source, code = stale.code,
  }, lsp_diag)
  local actions = request_sync(client, 'textDocument/codeAction', {
    textDocument = { uri = uri },
    range = lsp_diag.range,
    context = { diagnostics = { lsp_diag } },
  }, bufnr) or {}
  local titles, chosen = {}, nil
  for _, a in ipairs(actions) do
    table.insert(titles, a.title)
    if not chosen and a.title:match('^Still valid') then chosen = a end
  end
  record('actions', titles)
  if not chosen then return fail('no Still valid action') end
  local command = chosen.command
  if vim.lsp.commands[command.command] then
    vim.lsp.commands[command.command](command, { bufnr = bufnr, client_id = client.id })
  else
    request_sync(client, 'workspace/executeCommand', command, bufnr)
  end
  local cleared = vim.wait(15000, function() return #tether_diagnostics(bufnr) == 0 end, 50)
  record('cleared', cleared)

  -- a learning written by the CLI while the editor is open
  local refund = tonumber(env.TETHER_E2E_REFUND_LINE)
  local res = vim.fn.system({ env.TETHER_E2E_TETHER, '-C', env.TETHER_E2E_ROOT, 'add',
    'Refunds never call the gateway twice.', '--category', 'error',
    '--anchor', 'src/pay.py::PaymentClient.refund' })
  record('cli', vim.v.shell_error == 0 and 'ok' or res)
  local live
  vim.wait(15000, function()
    local result = request_sync(client, 'textDocument/hover', { textDocument = { uri = uri }, position = { line = refund + 1, character = 8 } }, bufnr)
    live = result and result.contents and result.contents.value
    return live ~= nil
  end, 100)
  record('live_hover', live or vim.NIL)

  -- the plugin's own commands: history of the learning under the cursor, stale list
  vim.api.nvim_win_set_cursor(0, { charge + 2, 4 })
  vim.cmd('TetherHistory')
  vim.wait(10000, function() return tether.last_shown ~= nil end, 50)
  record('history', tether.last_shown or vim.NIL)
  vim.cmd('wincmd p')
  vim.cmd('TetherStale')
  vim.wait(3000, function() return vim.fn.getqflist({ title = 0 }).title == 'Tether: stale learnings' end, 50)
  record('stale_list', #vim.fn.getqflist())
  record('published', published)
end)

if not ok then out.error = tostring(err) end
finish()
