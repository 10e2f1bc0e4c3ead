<?xml version="1.0" encoding="UTF-8"?>
<!--
  refbot's curator report: one self-contained HTML page per run (inline CSS, no script, no external request).
  XSLT 1.0, applied by bot/report.py with lxml. Text from fetched pages is only ever output as text, so the
  serializer escapes it; the Content-Security-Policy forbids scripts and remote loads as a second guard.
  Each proposed reference shows its review state (<review>). With the string parameter review-token set (the
  review server, bot/review/server.py) the page is interactive: beside each proposal still open to a decision a
  plain form (no script) posts approve/reject with the token, and the decision it was made on (decision-id), to
  decide beneath the server's secret path (review-base) on the page's own origin.
  Each snak of a proposed reference is shown as `refbot apply` writes it: an item by its id (with the label the trace
  gives), a text with its language (bot/review/proposals.py refuses a trace whose texts and values disagree).
-->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform" xmlns:t="urn:refbot:trace:1"
                exclude-result-prefixes="t">
  <xsl:output method="html" encoding="UTF-8" indent="yes" doctype-system="about:legacy-compat"/>

  <!-- Interactive review (bot/review/server.py): the session's token, the run, the curator's name and the path the
       server serves the page beneath. -->
  <xsl:param name="review-token" select="''"/>
  <xsl:param name="review-base" select="'/'"/>
  <xsl:param name="review-run" select="''"/>
  <xsl:param name="review-curator" select="''"/>
  <xsl:variable name="interactive" select="string($review-token) != ''"/>
  <!-- The QuickStatements lines `refbot export` leaves out, by the export's own rule (bot/output/report.py passes
       them: a line break, then GUID, a tab and the reason, for each): such a line is shown as not to be pasted. -->
  <xsl:param name="left-out" select="''"/>
  <!-- A page of a long run's report (the review service serves one page at a time): this page's number, how many
       there are, how many statements each holds and the run's count of statements; page links are "?page=N". -->
  <xsl:param name="page" select="''"/>
  <xsl:param name="pages" select="''"/>
  <xsl:param name="page-size" select="''"/>
  <xsl:param name="statements" select="''"/>
  <xsl:variable name="paged" select="string($pages) != '' and number($pages) &gt; 1"/>

  <xsl:template match="/t:trace">
    <xsl:variable name="run" select="t:run"/>
    <html lang="en">
      <head>
        <meta charset="utf-8"/>
        <xsl:choose>
          <xsl:when test="$interactive">
            <meta http-equiv="Content-Security-Policy"
                  content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'"/>
          </xsl:when>
          <xsl:otherwise>
            <meta http-equiv="Content-Security-Policy"
                  content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'"/>
          </xsl:otherwise>
        </xsl:choose>
        <!-- Interactive: same-origin, as under no-referrer a browser sends "Origin: null" with the form's POST and
             the server checks the Origin; links out of the page carry no referrer either way. -->
        <xsl:choose>
          <xsl:when test="$interactive"><meta name="referrer" content="same-origin"/></xsl:when>
          <xsl:otherwise><meta name="referrer" content="no-referrer"/></xsl:otherwise>
        </xsl:choose>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <title>refbot report <xsl:value-of select="substring($run/@started, 1, 16)"/></title>
        <style>
          body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem 1.5rem; color: #202122; }
          h1 { font-size: 1.5rem; margin-bottom: .2rem; } h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #c8ccd1; }
          h3 { font-size: 1.05rem; margin: 1.5rem 0 .3rem; }
          table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
          th, td { border: 1px solid #c8ccd1; padding: .3rem .5rem; text-align: left; vertical-align: top; }
          th { background: #eaecf0; }
          .badge { display: inline-block; border-radius: .8rem; padding: .05rem .6rem; font-size: .85rem; font-weight: 600; white-space: nowrap; }
          .supported { background: #d5fdf4; color: #14866d; border: 1px solid #14866d; }
          .not-found { background: #eaecf0; color: #54595d; border: 1px solid #a2a9b1; }
          .irretrievable { background: #fef6e7; color: #ac6600; border: 1px solid #ac6600; }
          .error { background: #fee7e6; color: #d33; border: 1px solid #d33; }
          .corroborated { background: #d5fdf4; color: #14866d; border: 1px solid #14866d; }
          .contradicted { background: #fee7e6; color: #b32424; border: 2px solid #b32424; }
          .supports { background: #d5fdf4; color: #14866d; border: 1px solid #14866d; }
          .contradicts { background: #fee7e6; color: #b32424; border: 2px solid #b32424; }
          .does-not-support, .dead-no-archive, .unreadable { background: #eaecf0; color: #54595d; border: 1px solid #a2a9b1; }
          .dead-archived { background: #fef6e7; color: #ac6600; border: 1px solid #ac6600; }
          .silent { background: #eaecf0; color: #54595d; border: 1px solid #a2a9b1; }
          .undecided { background: #fef6e7; color: #705000; border: 1px dashed #ac6600; }
          div.contradiction { margin: .5rem 0; padding: .4rem .7rem; background: #fee7e6; border-left: 4px solid #b32424; }
          div.contradiction blockquote { border-left-color: #b32424; background: #fff; }
          p.undecided-note { margin: .4rem 0; padding: .3rem .6rem; background: #fef6e7; border-left: 4px solid #ac6600; }
          section.contradictions { border: 2px solid #b32424; border-radius: .3rem; padding: .2rem 1rem; margin: 1rem 0; }
          div.corroboration { margin: .5rem 0; padding: .4rem .7rem; background: #f8f9fa; border-left: 4px solid #a2a9b1; }
          div.corroboration.finding-corroborated { border-left-color: #14866d; }
          div.corroboration.finding-contradicted { border-left-color: #b32424; }
          .counts .badge { margin-right: .4rem; }
          .meta { color: #54595d; font-size: .9rem; }
          dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; }
          .meta dt { font-weight: 600; } .meta dd { margin: 0; overflow-wrap: anywhere; }
          blockquote { margin: .5rem 0; padding: .5rem .8rem; background: #f8f9fa; border-left: 4px solid #14866d; }
          mark { background: #fef6a7; padding: 0 .1rem; }
          textarea.qs { width: 100%; font: 13px/1.3 monospace; min-height: 3.2rem; }
          textarea.qs.unsafe { border: 2px solid #b32424; background: #fee7e6; color: #54595d; }
          p.qs-unsafe { margin: .4rem 0; padding: .3rem .6rem; background: #fee7e6; border-left: 4px solid #b32424; }
          details { margin: .4rem 0; } summary { cursor: pointer; color: #36c; }
          .judgement { border-top: 1px dashed #c8ccd1; padding: .3rem 0; font-size: .92rem; }
          .answer { white-space: pre-wrap; color: #54595d; }
          code { font-size: .9em; }
          .proposed { background: #eaf3ff; color: #36c; border: 1px solid #36c; }
          .approved { background: #d5fdf4; color: #14866d; border: 1px solid #14866d; }
          .rejected { background: #fee7e6; color: #d33; border: 1px solid #d33; }
          .written { background: #14866d; color: #fff; border: 1px solid #14866d; }
          .skipped { background: #eaecf0; color: #54595d; border: 1px solid #a2a9b1; }
          .statements .review-state { margin-left: .3rem; }
          div.review { margin: .5rem 0; padding: .4rem .7rem; background: #f8f9fa; border: 1px solid #c8ccd1; border-radius: .3rem; }
          div.review p { margin: .2rem 0; }
          form.decide { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin: .3rem 0; }
          form.decide input.note { flex: 1 1 18rem; font: inherit; padding: .2rem .4rem; }
          form.decide button { font: inherit; font-weight: 600; padding: .2rem .9rem; border-radius: .2rem; cursor: pointer; }
          form.decide button.approve { background: #14866d; color: #fff; border: 1px solid #14866d; }
          form.decide button.reject { background: #fff; color: #d33; border: 1px solid #d33; }
          p.reviewing { background: #eaf3ff; border: 1px solid #36c; padding: .3rem .6rem; border-radius: .3rem; }
        </style>
      </head>
      <body>
        <h1>refbot report</h1>
        <xsl:if test="$interactive">
          <p class="reviewing" id="reviewing">Reviewing run <xsl:value-of select="$review-run"/> as
            <strong class="curator"><xsl:value-of select="$review-curator"/></strong>: approve or reject each
            proposed reference; decisions are kept in the run ledger.</p>
        </xsl:if>
        <p class="meta">
          <xsl:if test="$run/@mode != 'run'"><xsl:value-of select="$run/@mode"/><xsl:text> </xsl:text></xsl:if>run<xsl:if test="$run/@id"><xsl:text> </xsl:text><xsl:value-of select="$run/@id"/></xsl:if>,
          started <xsl:value-of select="$run/@started"/>, <xsl:value-of select="$run/@duration-s"/> s,
          refbot <xsl:value-of select="$run/@tool-version"/>
          <xsl:if test="$run/@complete = 'false'"> — <strong>incomplete</strong></xsl:if>
        </p>
        <xsl:apply-templates select="$run"/>
        <xsl:call-template name="pages"/>
        <xsl:if test="t:item/t:statement[@outcome = 'contradicted']">
          <section class="contradictions">
            <h2>Contradicted by authority records or pages</h2>
            <p class="meta">An authority record or a page states another value for these statements. Nothing is
              proposed for them: check the source and the statement, and correct whichever is wrong.</p>
            <ul>
              <xsl:for-each select="t:item/t:statement[@outcome = 'contradicted']">
                <xsl:variable name="pages" select="t:document[@evidence = 'true']/t:judgement[@verdict = 'contradicts']"/>
                <xsl:variable name="against" select="t:document[@evidence = 'true']/t:judgement[t:against]"/>
                <xsl:variable name="supporting" select="count(t:document[@evidence = 'true']/t:judgement[@supports = 'true'])"/>
                <li><a href="#{concat('statement-', translate(@guid, ' ', '_'))}"><xsl:value-of select="../@label"/>
                  (<xsl:value-of select="../@id"/>), <xsl:value-of select="@property-label"/>: <xsl:value-of select="@value-text"/></a>
                  <xsl:if test="t:corroboration/t:record[@finding = 'contradicted']"> — </xsl:if>
                  <xsl:for-each select="t:corroboration/t:record[@finding = 'contradicted']"><xsl:if test="position() &gt; 1">; </xsl:if>
                    <xsl:value-of select="@database-label"/><xsl:if test="not(@database-label)"><xsl:value-of select="@property-label"/></xsl:if>
                    <xsl:text> </xsl:text><xsl:value-of select="@identifier"/>:
                    <xsl:value-of select="t:candidate[@chosen = 'true']/@relation"/><xsl:text> </xsl:text>
                    <strong><xsl:value-of select="t:candidate[@chosen = 'true']/@object-text"/></strong></xsl:for-each>
                  <xsl:if test="$pages">
                    <ul class="page-contradictions">
                      <xsl:for-each select="$pages">
                        <li class="page-contradiction">
                          <xsl:call-template name="link"><xsl:with-param name="url" select="../@url"/>
                            <xsl:with-param name="text" select="../@url"/></xsl:call-template>
                          gives <strong class="form"><xsl:value-of select="t:contradiction/@form"/></strong><xsl:if test="not(t:contradiction)">another value</xsl:if>:
                          “<span class="sentence"><xsl:value-of select="t:contradiction"/></span>”</li>
                      </xsl:for-each>
                    </ul>
                  </xsl:if>
                  <xsl:if test="$against">
                    <ul class="page-contradictions">
                      <xsl:for-each select="$against">
                        <li class="page-against">
                          <xsl:call-template name="link"><xsl:with-param name="url" select="../@url"/>
                            <xsl:with-param name="text" select="../@url"/></xsl:call-template>
                          states otherwise (<xsl:call-template name="against"/>):
                          “<span class="sentence"><xsl:value-of select="t:against"/></span>”</li>
                      </xsl:for-each>
                    </ul>
                  </xsl:if>
                  <xsl:if test="$pages and $supporting &gt; 0">
                    <p class="meta">Yet <xsl:value-of select="$supporting"/> paragraph(s) support the statement's value:
                      read both before correcting anything.</p>
                  </xsl:if></li>
              </xsl:for-each>
            </ul>
          </section>
        </xsl:if>
        <xsl:if test="t:item/t:verification">
          <xsl:call-template name="verified"/>
        </xsl:if>
        <xsl:if test="not(t:item/t:verification)">
        <h2>Statements</h2>
        <xsl:choose>
          <xsl:when test="t:item/t:statement">
            <table class="statements">
              <thead><tr><th>Item</th><th>Property</th><th>Value</th><th>Outcome</th><th>Judgements</th><th>Wikidata</th></tr></thead>
              <tbody>
                <xsl:for-each select="t:item/t:statement">
                  <xsl:sort select="@outcome = 'contradicted'" order="descending"/>
                  <tr class="statement-row">
                    <td><xsl:value-of select="../@label"/> (<xsl:value-of select="../@id"/>)</td>
                    <td><xsl:value-of select="@property-label"/> (<xsl:value-of select="@property"/>)</td>
                    <td><a href="#{concat('statement-', translate(@guid, ' ', '_'))}"><xsl:value-of select="@value-text"/></a>
                      <xsl:apply-templates select="t:qualifier"/></td>
                    <td><span class="badge {@outcome}"><xsl:call-template name="outcome"/></span>
                      <xsl:for-each select="t:review[../t:reference]">
                        <span class="badge review-state {@state}" data-guid="{../@guid}"><xsl:value-of select="@state"/></span>
                      </xsl:for-each></td>
                    <td><xsl:value-of select="@judgements"/></td>
                    <td><xsl:call-template name="link"><xsl:with-param name="url" select="@url"/>
                      <xsl:with-param name="text" select="'statement'"/></xsl:call-template></td>
                  </tr>
                </xsl:for-each>
              </tbody>
            </table>
          </xsl:when>
          <xsl:otherwise><p>No statement was checked.</p></xsl:otherwise>
        </xsl:choose>
        </xsl:if>
        <xsl:apply-templates select="t:item"/>
        <xsl:call-template name="pages"/>
      </body>
    </html>
  </xsl:template>

  <xsl:template match="t:run">
    <xsl:variable name="summary" select="t:summary"/>
    <xsl:if test="$summary/@references">
      <p class="counts verify-counts">
        <xsl:for-each select="$summary/@supports | $summary/@contradicts | $summary/@does-not-support | $summary/@dead-archived | $summary/@dead-no-archive | $summary/@unreadable | $summary/@error">
          <xsl:if test=". &gt; 0"><span class="badge {name()}"><xsl:value-of select="."/><xsl:text> </xsl:text><xsl:value-of select="translate(name(), '-', ' ')"/></span><xsl:text> </xsl:text></xsl:if>
        </xsl:for-each>
        of <xsl:value-of select="$summary/@references"/> reference(s) of <xsl:value-of select="$summary/@statements"/> statement(s)<xsl:if test="$summary/@skipped &gt; 0">;
        <xsl:value-of select="$summary/@skipped"/> skipped (verified recently)</xsl:if>.
        <xsl:value-of select="$summary/@judgements"/> LLM judgement(s), <xsl:value-of select="$summary/@prompt-tokens"/> prompt tokens.
      </p>
    </xsl:if>
    <p class="counts">
      <xsl:if test="$summary/@references"><xsl:attribute name="hidden">hidden</xsl:attribute></xsl:if>
      <span class="badge supported"><xsl:value-of select="$summary/@supported"/> supported</span>
      <xsl:if test="$summary/@corroborated &gt; 0"><span class="badge corroborated"><xsl:value-of select="$summary/@corroborated"/> corroborated</span></xsl:if>
      <xsl:if test="$summary/@contradicted &gt; 0"><span class="badge contradicted"><xsl:value-of select="$summary/@contradicted"/> contradicted</span></xsl:if>
      <xsl:if test="$summary/@undecided &gt; 0"><span class="badge undecided" title="neither proposed nor called unsupported"><xsl:value-of select="$summary/@undecided"/> undecided</span></xsl:if>
      <span class="badge not-found"><xsl:value-of select="$summary/@not-found"/> not found</span>
      <span class="badge irretrievable"><xsl:value-of select="$summary/@irretrievable"/> irretrievable</span>
      <span class="badge error"><xsl:value-of select="$summary/@error"/> error</span>
      of <xsl:value-of select="$summary/@statements"/> statement(s)<xsl:if test="$summary/@skipped &gt; 0">;
      <xsl:value-of select="$summary/@skipped"/> skipped (checked recently)</xsl:if>.
      <xsl:value-of select="$summary/@judgements"/> LLM judgement(s), <xsl:value-of select="$summary/@prompt-tokens"/> prompt tokens.
    </p>
    <dl class="meta">
      <dt>Model</dt><dd><xsl:value-of select="t:judge/@model"/> (<xsl:value-of select="t:judge/@backend"/>)</dd>
      <xsl:if test="t:judge/@arithmetic">
        <dt>Arithmetic</dt><dd><xsl:value-of select="t:judge/@arithmetic"/></dd>
      </xsl:if>
      <dt>Prompt</dt><dd><xsl:value-of select="t:judge/@template"/>, threshold <xsl:value-of select="t:judge/@threshold"/></dd>
      <dt>Strategy</dt><dd><xsl:value-of select="t:judge/@strategy"/>
        <xsl:if test="t:judge/@strategy = 'ranked'">, top <xsl:value-of select="t:judge/@top"/> paragraphs per document,
          embeddings <xsl:value-of select="t:judge/@embeddings"/></xsl:if></dd>
      <dt>Finished</dt><dd><xsl:value-of select="@finished"/></dd>
      <xsl:for-each select="t:endpoint">
        <dt><xsl:value-of select="@service"/></dt><dd><code><xsl:value-of select="@url"/></code></dd>
      </xsl:for-each>
    </dl>
    <xsl:for-each select="t:note"><p class="meta">Note: <xsl:value-of select="."/></p></xsl:for-each>
    <details><summary>Prompt template and options</summary>
      <pre class="answer"><xsl:value-of select="t:judge/t:prompt-template"/></pre>
      <table><xsl:for-each select="t:option"><tr><td><code><xsl:value-of select="@name"/></code></td>
        <td><code><xsl:value-of select="@value"/></code></td></tr></xsl:for-each></table>
    </details>
  </xsl:template>

  <xsl:template match="t:item">
    <h2>
      <xsl:value-of select="@label"/><xsl:text> </xsl:text>
      <xsl:call-template name="link"><xsl:with-param name="url" select="@url"/>
        <xsl:with-param name="text" select="@id"/></xsl:call-template>
    </h2>
    <p class="meta">
      Item as checked: <xsl:call-template name="link"><xsl:with-param name="url" select="@permalink"/>
        <xsl:with-param name="text" select="concat('revision ', @revision)"/></xsl:call-template>
      <xsl:for-each select="t:article">
        · Wikipedia (<xsl:value-of select="@wiki"/>):
        <xsl:call-template name="link"><xsl:with-param name="url" select="@permalink"/>
          <xsl:with-param name="text" select="@title"/></xsl:call-template>
        <xsl:if test="@revision"> revision <xsl:value-of select="@revision"/></xsl:if>
      </xsl:for-each>
    </p>
    <xsl:for-each select="t:error"><p class="meta">Could not read everything about the item: <xsl:value-of select="."/></p></xsl:for-each>
    <xsl:apply-templates select="t:statement"/>
    <xsl:apply-templates select="t:verification"/>
  </xsl:template>

  <!-- A verify run's overview: what the references say, the findings curators act on first. -->
  <xsl:template name="verified">
    <xsl:if test="t:item/t:verification[@outcome = 'contradicts']">
      <section class="contradictions">
        <h2>References that give another value</h2>
        <p class="meta">The page a statement cites states another value for it. Either Wikidata's value or the
          reference is wrong: read the sentence, then correct whichever is.</p>
        <ul>
          <xsl:for-each select="t:item/t:verification[@outcome = 'contradicts']">
            <li class="reference-contradiction"><a href="#{concat('reference-', translate(@guid, ' ', '_'), '-', @reference)}">
              <xsl:value-of select="../@label"/> (<xsl:value-of select="../@id"/>), <xsl:value-of select="@property-label"/>:
              <xsl:value-of select="@value-text"/></a> — the page gives <strong class="form"><xsl:value-of select="t:other-value"/></strong>
              <xsl:if test="t:sentence">: “<span class="sentence"><xsl:value-of select="t:sentence"/></span>”</xsl:if></li>
          </xsl:for-each>
        </ul>
      </section>
    </xsl:if>
    <h2>References verified</h2>
    <table class="references">
      <thead><tr><th>Item</th><th>Property</th><th>Value</th><th>Finding</th><th>Cited page</th><th>Wikidata</th></tr></thead>
      <tbody>
        <xsl:for-each select="t:item/t:verification">
          <xsl:sort select="string-length(substring-before('contradicts dead-archived does-not-support dead-no-archive unreadable error supports', @outcome))" data-type="number"/>
          <tr class="reference-row" data-outcome="{@outcome}">
            <td><xsl:value-of select="../@label"/> (<xsl:value-of select="../@id"/>)</td>
            <td><xsl:value-of select="@property-label"/> (<xsl:value-of select="@property"/>)</td>
            <td><a href="#{concat('reference-', translate(@guid, ' ', '_'), '-', @reference)}"><xsl:value-of select="@value-text"/></a>
              <xsl:apply-templates select="t:qualifier"/></td>
            <td><span class="badge {@outcome}"><xsl:value-of select="translate(@outcome, '-', ' ')"/></span>
              <xsl:if test="@archived"> (the copy: <xsl:value-of select="translate(@archived, '-', ' ')"/>)</xsl:if></td>
            <td><xsl:call-template name="link"><xsl:with-param name="url" select="t:cited/@url"/>
              <xsl:with-param name="text" select="t:cited/@url"/></xsl:call-template></td>
            <td><xsl:call-template name="link"><xsl:with-param name="url" select="@url"/>
              <xsl:with-param name="text" select="'statement'"/></xsl:call-template></td>
          </tr>
        </xsl:for-each>
      </tbody>
    </table>
  </xsl:template>

  <xsl:template match="t:verification">
    <section class="verification" id="{concat('reference-', translate(@guid, ' ', '_'), '-', @reference)}"
             data-guid="{@guid}" data-reference="{@reference}">
      <h3>
        <xsl:value-of select="@property-label"/>: <xsl:value-of select="@value-text"/>
        <xsl:apply-templates select="t:qualifier"/><xsl:text> </xsl:text>
        <span class="badge {@outcome}"><xsl:value-of select="translate(@outcome, '-', ' ')"/></span>
      </h3>
      <p class="meta">
        Reference <code><xsl:value-of select="@reference"/></code> of <code><xsl:value-of select="@guid"/></code> ·
        <xsl:call-template name="link"><xsl:with-param name="url" select="@url"/>
          <xsl:with-param name="text" select="'on Wikidata'"/></xsl:call-template>
        <xsl:if test="@support"> · support <xsl:value-of select="@support"/></xsl:if>
        · <xsl:value-of select="@judgements"/> judgement(s), <xsl:value-of select="@elapsed-s"/> s — <xsl:value-of select="t:reason"/>
      </p>
      <p class="cited">Cites
        <xsl:call-template name="link"><xsl:with-param name="url" select="t:cited/@url"/>
          <xsl:with-param name="text" select="t:cited/@url"/></xsl:call-template>
        <xsl:if test="t:cited/@identifier"> (<xsl:value-of select="t:cited/@via"/>
          <xsl:text> </xsl:text><xsl:value-of select="t:cited/@identifier"/>)</xsl:if>
        <xsl:if test="t:cited/@stated-in">, stated in <xsl:value-of select="t:cited/@stated-in"/></xsl:if>
        <xsl:if test="t:cited/@retrieved">, retrieved <xsl:value-of select="t:cited/@retrieved"/></xsl:if>
        <xsl:if test="t:cited/@archive-url">, archived copy
          <xsl:call-template name="link"><xsl:with-param name="url" select="t:cited/@archive-url"/>
            <xsl:with-param name="text" select="t:cited/@archive-date"/></xsl:call-template></xsl:if>
      </p>
      <xsl:if test="t:sentence">
        <div class="proposed">
          <xsl:choose>
            <xsl:when test="t:other-value"><strong>Gives another value: <xsl:value-of select="t:other-value"/></strong></xsl:when>
            <xsl:otherwise><strong>Supporting sentence</strong></xsl:otherwise>
          </xsl:choose>
          <blockquote class="sentence"><xsl:value-of select="t:sentence"/></blockquote>
        </div>
      </xsl:if>
      <xsl:apply-templates select="t:relation"/>
      <xsl:apply-templates select="t:document"/>
    </section>
  </xsl:template>

  <!-- A statement's qualifier after its value: "Purkyně Prize for Chemistry — point in time: 2021". -->
  <xsl:template match="t:qualifier">
    <span class="qualifier" data-property="{@property}">
      <xsl:choose><xsl:when test="position() = 1"> — </xsl:when><xsl:otherwise>; </xsl:otherwise></xsl:choose>
      <xsl:value-of select="@label"/>: <xsl:value-of select="@value-text"/></span>
  </xsl:template>

  <!-- A statement's outcome as curators read it: "no record states it" where only authority records were read
       (nothing searched) and none stated it. -->
  <xsl:template name="outcome">
    <xsl:choose>
      <xsl:when test="@outcome = 'not-found' and t:corroboration and not(t:document) and not(t:search)">no record states it</xsl:when>
      <xsl:otherwise><xsl:value-of select="@outcome"/></xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <!-- Why a judged paragraph is evidence against (its t:against): "the value is negated (“not”)". -->
  <xsl:template name="against">
    <xsl:choose>
      <xsl:when test="t:against/@reason"><xsl:value-of select="t:against/@reason"/></xsl:when>
      <xsl:when test="t:against/@kind = 'negated'">the value is negated (“<xsl:value-of select="t:against/@cue"/>”)</xsl:when>
      <xsl:otherwise>it states another relation: <xsl:value-of select="t:against/@cue"/></xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <xsl:template match="t:statement">
    <section class="statement" id="{concat('statement-', translate(@guid, ' ', '_'))}" data-guid="{@guid}">
      <h3>
        <xsl:value-of select="@property-label"/>: <xsl:value-of select="@value-text"/>
        <xsl:apply-templates select="t:qualifier"/><xsl:text> </xsl:text>
        <span class="badge {@outcome}"><xsl:call-template name="outcome"/></span>
      </h3>
      <p class="meta">
        <code><xsl:value-of select="@guid"/></code> ·
        <xsl:call-template name="link"><xsl:with-param name="url" select="@url"/>
          <xsl:with-param name="text" select="'on Wikidata'"/></xsl:call-template>
        · <xsl:value-of select="@judgements"/> judgement(s), <xsl:value-of select="@prompt-tokens"/> prompt tokens,
        <xsl:value-of select="@elapsed-s"/> s<xsl:if test="t:stage"> (<xsl:for-each select="t:stage"><xsl:if test="position() &gt; 1">, </xsl:if><xsl:value-of select="@name"/>
          <xsl:text> </xsl:text><xsl:value-of select="@seconds"/> s</xsl:for-each>)</xsl:if> — <xsl:value-of select="t:reason"/>
      </p>
      <xsl:apply-templates select="t:relation"/>
      <xsl:apply-templates select="t:corroboration"/>
      <xsl:if test="@outcome = 'undecided'">
        <p class="undecided-note">Undecided: the judge's calibrated support for the paragraphs judged lies in its
          undecided band. Nothing is proposed, and the statement is not called unsupported either: read the
          paragraphs under “Searches and documents” and decide.</p>
      </xsl:if>
      <xsl:for-each select="t:document[@evidence = 'true']/t:judgement[t:against]">
        <div class="contradiction against">
          <p><strong>Evidence against:</strong>
            <xsl:text> </xsl:text><xsl:call-template name="link"><xsl:with-param name="url" select="../@url"/>
              <xsl:with-param name="text" select="concat(../@title, substring(../@url, 1, 2000 * not(string(../@title))))"/></xsl:call-template>
            writes <strong><xsl:value-of select="../../@value-text"/></strong> but <xsl:call-template name="against"/></p>
          <blockquote class="sentence"><xsl:value-of select="t:against"/></blockquote>
          <p class="meta"><xsl:call-template name="unit"/> of <xsl:call-template name="link"><xsl:with-param name="url" select="../@url"/>
              <xsl:with-param name="text" select="../@url"/></xsl:call-template></p>
          <details><summary>The whole paragraph</summary><blockquote><xsl:apply-templates select="t:paragraph"/></blockquote></details>
        </div>
      </xsl:for-each>
      <xsl:for-each select="t:document[@evidence = 'true']/t:judgement[@verdict = 'contradicts']">
        <div class="contradiction">
          <p><strong>Another value:</strong>
            <xsl:text> </xsl:text><xsl:call-template name="link"><xsl:with-param name="url" select="../@url"/>
              <xsl:with-param name="text" select="concat(../@title, substring(../@url, 1, 2000 * not(string(../@title))))"/></xsl:call-template>
            gives <strong class="form"><xsl:value-of select="t:contradiction/@form"/></strong><xsl:if test="not(t:contradiction)">another value</xsl:if>
            where the statement says <strong><xsl:value-of select="../../@value-text"/></strong>
            <xsl:if test="t:contradiction"> (support for the claim with it: <xsl:value-of select="t:contradiction/@support"/>)</xsl:if></p>
          <xsl:if test="t:contradiction"><blockquote class="sentence"><xsl:value-of select="t:contradiction"/></blockquote></xsl:if>
          <p class="meta">
            <xsl:call-template name="unit"/> of <xsl:call-template name="link"><xsl:with-param name="url" select="../@url"/>
              <xsl:with-param name="text" select="../@url"/></xsl:call-template>
            <xsl:if test="../@archive-url"> · read from the
              <xsl:call-template name="link"><xsl:with-param name="url" select="../@archive-url"/>
                <xsl:with-param name="text" select="'archived copy'"/></xsl:call-template>
              (<xsl:value-of select="../@archive-timestamp"/>)</xsl:if>
            <xsl:call-template name="scores"/>
          </p>
          <details><summary>The whole paragraph</summary><blockquote><xsl:apply-templates select="t:paragraph"/></blockquote></details>
        </div>
      </xsl:for-each>
      <xsl:for-each select="t:document[@evidence = 'true']/t:judgement[@supports = 'true']">
        <div class="support">
          <blockquote><xsl:apply-templates select="t:paragraph"/></blockquote>
          <p class="meta">
            <xsl:call-template name="unit"/> of
            <xsl:call-template name="link"><xsl:with-param name="url" select="../@url"/>
              <xsl:with-param name="text" select="concat(../@title, substring(../@url, 1, 2000 * not(string(../@title))))"/></xsl:call-template>
            <xsl:if test="../@archive-url"> · read from the
              <xsl:call-template name="link"><xsl:with-param name="url" select="../@archive-url"/>
                <xsl:with-param name="text" select="'archived copy'"/></xsl:call-template>
              (<xsl:value-of select="../@archive-timestamp"/>)</xsl:if>
            <xsl:call-template name="scores"/>
          </p>
          <xsl:call-template name="compared"/>
          <xsl:if test="t:justification"><p><strong>Justification:</strong> <xsl:value-of select="t:justification"/></p></xsl:if>
        </div>
      </xsl:for-each>
      <xsl:apply-templates select="t:reference"/>
      <xsl:if test="t:reference">
        <xsl:call-template name="review"/>
      </xsl:if>
      <details>
        <summary>Searches and documents (<xsl:value-of select="count(t:document)"/>)</summary>
        <xsl:for-each select="t:search">
          <p>Search (<xsl:value-of select="@engine"/>): <code><xsl:value-of select="@query"/></code>
            <xsl:for-each select="t:error"> — failed: <xsl:value-of select="."/></xsl:for-each></p>
          <ol><xsl:for-each select="t:result"><li><xsl:call-template name="link"><xsl:with-param name="url" select="@url"/>
            <xsl:with-param name="text" select="concat(@title, substring(@url, 1, 2000 * not(string(@title))))"/></xsl:call-template></li></xsl:for-each></ol>
        </xsl:for-each>
        <xsl:apply-templates select="t:document"/>
      </details>
    </section>
  </xsl:template>

  <!-- "judged as: received; against: nominated for (catalogue), …": how the property was put to the judge. -->
  <xsl:template match="t:relation">
    <p class="meta relation">
      Judged as “<xsl:value-of select="@phrase"/>”<xsl:if test="@other-phrases"> or “<xsl:value-of select="@other-phrases"/>”</xsl:if> (<xsl:value-of select="@phrase-source"/>)
      <xsl:choose>
        <xsl:when test="t:contrast">; judged against:
          <xsl:for-each select="t:contrast">
            <xsl:if test="position() &gt; 1">, </xsl:if>
            <xsl:value-of select="@label"/> (<xsl:value-of select="@property"/>, “<xsl:value-of select="@phrase"/>”<xsl:if test="@other-phrases"> or “<xsl:value-of select="@other-phrases"/>”</xsl:if>;
            <xsl:value-of select="@sources"/>)</xsl:for-each></xsl:when>
        <xsl:otherwise>; no contrasting property known</xsl:otherwise>
      </xsl:choose>
      · profile from <xsl:value-of select="@source"/>
      <xsl:if test="@retrieved">, read <xsl:value-of select="@retrieved"/></xsl:if>
      <xsl:for-each select="t:note"> — <xsl:value-of select="."/></xsl:for-each>
    </p>
  </xsl:template>

  <!-- A judged paragraph's numbers and how it names things (the context is a judgement). -->
  <!-- "Paragraph 3", or what a unit other than prose is: "Table, unit 12" -->
  <xsl:template name="unit">
    <xsl:choose>
      <xsl:when test="@kind and @kind != 'paragraph'"><xsl:call-template name="kind"/>, unit <xsl:value-of select="@position"/></xsl:when>
      <xsl:otherwise>Paragraph <xsl:value-of select="@position"/></xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <xsl:template name="kind">
    <xsl:choose>
      <xsl:when test="@kind = 'lines'">Lines</xsl:when>
      <xsl:when test="@kind = 'table'">Table</xsl:when>
      <xsl:when test="@kind = 'definitions'">Definition list</xsl:when>
      <xsl:when test="@kind = 'header'">Header line</xsl:when>
      <xsl:when test="@kind = 'breadcrumb'">Breadcrumb</xsl:when>
      <xsl:when test="@kind = 'caption'">Caption</xsl:when>
      <xsl:when test="@kind = 'title'">Page title</xsl:when>
      <xsl:otherwise><xsl:value-of select="@kind"/></xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <xsl:template name="scores">
    · support <xsl:value-of select="@support"/><xsl:if test="@calibrated"> (calibrated <strong class="calibrated"><xsl:value-of select="@calibrated"/></strong>)</xsl:if>,
    pre-rank score <xsl:value-of select="@score"/>
    <xsl:if test="@subject-rule"> · about the subject: <xsl:value-of select="@subject-rule"/></xsl:if>
    <!-- how the judge found the value written (written, written-form), else how pre-ranking found it -->
    <xsl:choose>
      <xsl:when test="@written != '' and not(normalize-space(@written-form))"> · <span class="value-written">value not found in the text by refbot, read by the model (<xsl:value-of select="@written"/>)</span></xsl:when>
      <xsl:when test="@written != ''"> · <span class="value-written">value as written: “<xsl:value-of select="@written-form"/>” (<xsl:value-of select="@written"/>)</span></xsl:when>
      <xsl:when test="@value-form"> · <span class="value-written">value as written: “<xsl:value-of select="@value-form"/>” (<xsl:value-of select="@value-match"/>)</span></xsl:when>
      <xsl:when test="@written"> · <span class="value-written">value not written</span></xsl:when>
    </xsl:choose>
    <xsl:if test="@context"> · read after the page's line “<xsl:value-of select="@context"/>”</xsl:if>
  </xsl:template>

  <xsl:template name="verdict">
    <xsl:choose>
      <xsl:when test="@verdict = 'a'">supports</xsl:when>
      <xsl:when test="@verdict = 'b'">undecided</xsl:when>
      <xsl:when test="@verdict = 'c'">not inferable</xsl:when>
      <xsl:when test="@verdict = 'contradicts'">contradicts</xsl:when>
      <xsl:otherwise><xsl:value-of select="@verdict"/></xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <xsl:template name="compared">
    <xsl:if test="t:compared">
      <p class="meta compared">Relations weighed (share of the summary likelihood):
        <xsl:for-each select="t:compared">
          <xsl:if test="position() &gt; 1"> · </xsl:if>
          <xsl:choose>
            <xsl:when test="@claimed = 'true'"><strong><xsl:value-of select="@label"/></strong></xsl:when>
            <xsl:otherwise><xsl:value-of select="@label"/></xsl:otherwise>
          </xsl:choose>
          “<xsl:value-of select="@phrase"/>” <xsl:value-of select="@share"/></xsl:for-each>
      </p>
    </xsl:if>
  </xsl:template>

  <xsl:template match="t:document">
    <div class="document">
      <p>
        <strong><xsl:value-of select="@origin"/></strong>:
        <xsl:call-template name="link"><xsl:with-param name="url" select="@url"/>
          <xsl:with-param name="text" select="@url"/></xsl:call-template>
        — <xsl:value-of select="@outcome"/>
        <xsl:if test="@status"> (HTTP <xsl:value-of select="@status"/>)</xsl:if>,
        <xsl:value-of select="@paragraphs"/> paragraph(s), <xsl:value-of select="count(t:judgement)"/> judged
        <xsl:if test="@not-ranked"> (<xsl:value-of select="@not-ranked"/> never ranked: only the paragraphs
          naming the item and the value most are, up to [check] paragraphs)</xsl:if>
        <xsl:if test="@archive-url"> · archived copy
          <xsl:call-template name="link"><xsl:with-param name="url" select="@archive-url"/>
            <xsl:with-param name="text" select="@archive-timestamp"/></xsl:call-template></xsl:if>
        <xsl:if test="@sha256"> · sha256 <code><xsl:value-of select="substring(@sha256, 1, 12)"/>…</code></xsl:if>
        <xsl:for-each select="t:reason"> — <xsl:value-of select="."/></xsl:for-each>
      </p>
      <xsl:for-each select="t:note"><p class="meta"><xsl:value-of select="."/></p></xsl:for-each>
      <xsl:for-each select="t:judgement">
        <div class="judgement">
          ¶<xsl:value-of select="@position"/><xsl:if test="@kind and @kind != 'paragraph'"> (<xsl:call-template name="kind"/>)</xsl:if> · verdict <strong class="verdict"><xsl:call-template name="verdict"/></strong>
          <xsl:call-template name="scores"/>
          <xsl:for-each select="t:contradiction"> · gives <strong><xsl:value-of select="@form"/></strong>
            (support <xsl:value-of select="@support"/>)</xsl:for-each>
          <xsl:if test="t:against"> · <strong>evidence against</strong>: <xsl:call-template name="against"/></xsl:if>
          <xsl:if test="@asked = 'true'"> · <xsl:value-of select="@prompt-tokens"/> tokens, <xsl:value-of select="@latency-s"/> s</xsl:if>
          <xsl:if test="@justification-s"> · justification <xsl:value-of select="@justification-s"/> s</xsl:if>
          <blockquote><xsl:apply-templates select="t:paragraph"/></blockquote>
          <xsl:call-template name="compared"/>
          <div class="answer"><xsl:value-of select="t:answer"/></div>
        </div>
      </xsl:for-each>
    </div>
  </xsl:template>

  <xsl:template match="t:paragraph"><xsl:apply-templates/></xsl:template>
  <xsl:template match="t:match"><mark><xsl:value-of select="."/></mark></xsl:template>

  <!-- What the item's authority records said: each record, its finding, and the facts weighed. -->
  <xsl:template match="t:corroboration">
    <div class="corroboration finding-{@finding}">
      <p><strong>Authority records:</strong> <span class="badge {@finding}"><xsl:value-of select="@finding"/></span>
        — <xsl:value-of select="t:reason"/>
        <xsl:if test="@not-read &gt; 0"> (<xsl:value-of select="@not-read"/> more identifier(s) not read)</xsl:if></p>
      <xsl:for-each select="t:record">
        <details>
          <xsl:if test="@finding != 'silent'"><xsl:attribute name="open">open</xsl:attribute></xsl:if>
          <summary><span class="badge {@finding}"><xsl:value-of select="@finding"/></span><xsl:text> </xsl:text>
            <xsl:value-of select="@database-label"/><xsl:if test="not(@database-label)"><xsl:value-of select="@property-label"/></xsl:if>
            (<xsl:value-of select="@property-label"/>, <xsl:value-of select="@property"/>
            <xsl:text> </xsl:text><code><xsl:value-of select="@identifier"/></code>) — <xsl:value-of select="t:reason"/></summary>
          <p class="meta">Record: <xsl:if test="@page"><xsl:call-template name="link"><xsl:with-param name="url" select="@page"/>
              <xsl:with-param name="text" select="'record page'"/></xsl:call-template> · </xsl:if>
            <xsl:call-template name="link"><xsl:with-param name="url" select="@url"/>
              <xsl:with-param name="text" select="'RDF'"/></xsl:call-template>
            <xsl:text> </xsl:text><code class="meta"><xsl:value-of select="@url"/></code>
            <xsl:if test="@final-url"> (moved to <xsl:call-template name="link"><xsl:with-param name="url" select="@final-url"/>
              <xsl:with-param name="text" select="@final-url"/></xsl:call-template>)</xsl:if>
            <xsl:if test="@format"> · <xsl:value-of select="@format"/></xsl:if>
            · <xsl:value-of select="@triples"/> triple(s)<xsl:if test="@subject">, <xsl:value-of select="@facts"/> fact(s) about
              <code><xsl:value-of select="@subject"/></code> (<xsl:value-of select="@subject-label"/>)</xsl:if>
            <xsl:if test="@retrieved"> · retrieved <xsl:value-of select="@retrieved"/></xsl:if>
            <xsl:if test="@step"> · candidates by <xsl:value-of select="@step"/></xsl:if></p>
          <xsl:if test="t:candidate">
            <table class="candidates">
              <thead><tr><th>Relation</th><th>Value in the record</th><th>Cosine</th><th>Compared</th><th>Recognised</th></tr></thead>
              <tbody>
                <xsl:for-each select="t:candidate">
                  <tr>
                    <td><xsl:if test="@chosen = 'true'"><strong>▶ </strong></xsl:if><xsl:value-of select="@relation"/>
                      <br/><code class="meta"><xsl:value-of select="@predicate"/></code></td>
                    <td><xsl:value-of select="@object-text"/></td>
                    <td><xsl:value-of select="@cosine"/></td>
                    <td><xsl:value-of select="@agreement"/> (<xsl:value-of select="@compared"/>)</td>
                    <td><xsl:value-of select="@recognised"/></td>
                  </tr>
                </xsl:for-each>
              </tbody>
            </table>
          </xsl:if>
          <xsl:for-each select="t:picks">
            <p class="meta">The model (<xsl:value-of select="@model"/>) was asked which relations state the property:
              “<xsl:value-of select="t:answer"/>”<xsl:if test="t:accepted"> — accepted: <xsl:for-each select="t:accepted"><xsl:if test="position() &gt; 1">, </xsl:if><xsl:value-of select="."/></xsl:for-each></xsl:if>
              <xsl:if test="t:refused"> — refused (not a relation of the record): <xsl:for-each select="t:refused"><xsl:if test="position() &gt; 1">, </xsl:if><xsl:value-of select="."/></xsl:for-each></xsl:if>;
              <xsl:value-of select="@prompt-tokens"/> prompt tokens, <xsl:value-of select="@latency-s"/> s</p>
          </xsl:for-each>
        </details>
      </xsl:for-each>
    </div>
  </xsl:template>

  <xsl:template match="t:reference">
    <table class="reference">
      <caption>Proposed reference<xsl:if test="@kind = 'stated-in'"> (stated in an authority record)</xsl:if></caption>
      <thead><tr><th>Property</th><th>Value</th></tr></thead>
      <tbody>
        <xsl:for-each select="t:snak">
          <tr><td><xsl:value-of select="@label"/> (<xsl:value-of select="@property"/>)</td>
            <td><xsl:choose>
              <xsl:when test="@property = 'P854' or @property = 'P1065'">
                <xsl:call-template name="link"><xsl:with-param name="url" select="@text"/>
                  <xsl:with-param name="text" select="@text"/></xsl:call-template></xsl:when>
              <!-- an authority record's identifier: its page for people first, then the RDF refbot read -->
              <xsl:when test="@datatype = 'external-id'">
                <xsl:variable name="record" select="ancestor::t:statement[1]/t:corroboration/t:record[@property = current()/@property and @identifier = current()/@text]"/>
                <code class="id"><xsl:value-of select="@text"/></code>
                <xsl:if test="$record/@page"> · <xsl:call-template name="link"><xsl:with-param name="url" select="$record/@page"/>
                  <xsl:with-param name="text" select="'record page'"/></xsl:call-template></xsl:if>
                · <xsl:call-template name="link"><xsl:with-param name="url" select="../@url"/>
                  <xsl:with-param name="text" select="'RDF'"/></xsl:call-template></xsl:when>
              <!-- an item (Q123): its id is what is written (linked to the item), the text its label -->
              <xsl:when test="starts-with(@value, 'Q') and string-length(@value) &gt; 1 and translate(substring(@value, 2), '0123456789', '') = ''">
                <xsl:variable name="item" select="ancestor::t:item[1]"/>
                <code class="id"><xsl:call-template name="link">
                  <xsl:with-param name="url" select="concat(substring-before($item/@url, $item/@id), @value)"/>
                  <xsl:with-param name="text" select="@value"/></xsl:call-template></code>
                <xsl:if test="@text != @value"><xsl:text> </xsl:text><span class="label"><xsl:value-of select="@text"/></span></xsl:if></xsl:when>
              <!-- a monolingual text (en:"…"): the text and its language -->
              <xsl:when test="not(starts-with(@value, '&quot;')) and contains(@value, ':&quot;')">
                <xsl:value-of select="@text"/> <span class="meta"> (<xsl:value-of select="substring-before(@value, ':&quot;')"/>)</span></xsl:when>
              <xsl:otherwise><xsl:value-of select="@text"/></xsl:otherwise>
            </xsl:choose></td></tr>
        </xsl:for-each>
      </tbody>
    </table>
    <xsl:variable name="export" select="substring-before(substring-after($left-out, concat('&#10;', ../@guid, '&#9;')), '&#10;')"/>
    <xsl:variable name="unsafe" select="substring-before($export, '&#xE000;')"/>
    <xsl:variable name="instead" select="translate(substring-after($export, '&#xE000;'), '&#xE001;', '&#9;')"/>
    <xsl:choose>
      <xsl:when test="$unsafe != '' and $instead != ''">
        <p class="qs-unsafe"><strong>Exported in part:</strong><xsl:text> </xsl:text><code>refbot export</code> writes
          this reference <xsl:value-of select="$unsafe"/>. The line below is what it writes; <code>refbot apply</code>
          writes the whole reference as it is.</p>
        <textarea class="qs trimmed" readonly="readonly" rows="3" title="as refbot export writes it"><xsl:value-of select="$instead"/></textarea>
      </xsl:when>
      <xsl:when test="$unsafe != ''">
        <p class="qs-unsafe"><strong>Not for QuickStatements:</strong><xsl:text> </xsl:text><code>refbot export</code> leaves this line
          out: <xsl:value-of select="$unsafe"/>. Do not paste it; <code>refbot apply</code> writes the reference as
          it is.</p>
        <textarea class="qs unsafe" readonly="readonly" rows="3" title="left out by refbot export"><xsl:value-of select="t:quickstatements"/></textarea>
      </xsl:when>
      <xsl:otherwise>
        <p class="meta">QuickStatements (select and copy; tab-separated, V1):</p>
        <textarea class="qs" readonly="readonly" rows="3"><xsl:value-of select="t:quickstatements"/></textarea>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <!-- Where a proposal stands (its <review>), and in interactive mode the form that decides it. The context is the
       statement; a proposal with no <review> yet (a trace straight from a check) is proposed. -->
  <xsl:template name="review">
    <xsl:variable name="review" select="t:review"/>
    <xsl:variable name="state">
      <xsl:choose>
        <xsl:when test="$review"><xsl:value-of select="$review/@state"/></xsl:when>
        <xsl:otherwise>proposed</xsl:otherwise>
      </xsl:choose>
    </xsl:variable>
    <xsl:if test="$review or $interactive">
      <div class="review" id="{concat('review-', translate(@guid, ' ', '_'))}" data-guid="{@guid}" data-state="{$state}">
        <p class="review-status">
          Review: <span class="badge review-state {$state}"><xsl:value-of select="$state"/></span>
          <xsl:for-each select="$review">
            <xsl:choose>
              <xsl:when test="@state = 'proposed'"> no decision yet</xsl:when>
              <xsl:when test="@state = 'approved' or @state = 'rejected'">
                <xsl:text> by </xsl:text><span class="curator"><xsl:value-of select="@curator"/></span>
                <xsl:if test="@decided"> on <time datetime="{@decided}"><xsl:value-of select="@decided"/></time></xsl:if>
                <xsl:if test="t:note"> (<span class="note"><xsl:value-of select="t:note"/></span>)</xsl:if>
                <xsl:if test="@state = 'approved' and t:reason"> · <strong class="write-failed">last write failed:
                  <xsl:value-of select="t:reason"/></strong></xsl:if>
              </xsl:when>
              <xsl:when test="@state = 'written'">
                <xsl:text>: </xsl:text>
                <xsl:call-template name="link"><xsl:with-param name="url" select="@revision-url"/>
                  <xsl:with-param name="text" select="concat('revision ', @revision)"/></xsl:call-template>
                <xsl:if test="@written"> on <time datetime="{@written}"><xsl:value-of select="@written"/></time></xsl:if>
                <xsl:if test="@curator"> · approved by <span class="curator"><xsl:value-of select="@curator"/></span></xsl:if>
                <xsl:if test="t:note"> (<span class="note"><xsl:value-of select="t:note"/></span>)</xsl:if>
              </xsl:when>
              <xsl:when test="@state = 'skipped'">: <span class="reason"><xsl:value-of select="t:reason"/></span></xsl:when>
            </xsl:choose>
          </xsl:for-each>
        </p>
        <xsl:if test="$interactive and ($state = 'proposed' or $state = 'approved' or $state = 'rejected')">
          <form method="post" action="{concat($review-base, 'decide')}" class="decide"
                id="{concat('decide-', translate(@guid, ' ', '_'))}" data-guid="{@guid}">
            <input type="hidden" name="token" value="{$review-token}"/>
            <input type="hidden" name="seen" value="{concat(substring('0', 1, 1 - boolean($review/@decision-id)), $review/@decision-id)}"/>
            <input type="hidden" name="guid" value="{@guid}"/>
            <input type="text" name="note" class="note" maxlength="1000" placeholder="note (optional)"
                   aria-label="note (optional)"/>
            <button type="submit" name="decision" value="approved" class="approve">Approve</button>
            <button type="submit" name="decision" value="rejected" class="reject">Reject</button>
          </form>
        </xsl:if>
      </div>
    </xsl:if>
  </xsl:template>

  <!-- Where this page stands among the report's pages, with links to the first, previous, next and last. -->
  <xsl:template name="pages">
    <xsl:if test="$paged">
      <xsl:variable name="at" select="number($page)"/>
      <xsl:variable name="last" select="number($pages)"/>
      <nav class="pages meta" aria-label="pages of the report">
        Page <xsl:value-of select="$at"/> of <xsl:value-of select="$last"/>
        (statements <xsl:value-of select="($at - 1) * number($page-size) + 1"/>–<xsl:choose>
          <xsl:when test="$at * number($page-size) &lt; number($statements)"><xsl:value-of select="$at * number($page-size)"/></xsl:when>
          <xsl:otherwise><xsl:value-of select="$statements"/></xsl:otherwise></xsl:choose>
        of <xsl:value-of select="$statements"/>, contradicted ones first):
        <xsl:if test="$at &gt; 1"><a href="?page=1" rel="first">first</a> · <a href="?page={$at - 1}" rel="prev">previous</a></xsl:if>
        <xsl:if test="$at &gt; 1 and $at &lt; $last"> · </xsl:if>
        <xsl:if test="$at &lt; $last"><a href="?page={$at + 1}" rel="next">next</a> · <a href="?page={$last}" rel="last">last</a></xsl:if>
      </nav>
    </xsl:if>
  </xsl:template>

  <!-- A link only for http(s) URLs; anything else is shown as text. -->
  <xsl:template name="link">
    <xsl:param name="url"/>
    <xsl:param name="text"/>
    <xsl:choose>
      <xsl:when test="starts-with($url, 'https://') or starts-with($url, 'http://')">
        <a href="{$url}" rel="noopener noreferrer nofollow"><xsl:value-of select="$text"/></a>
      </xsl:when>
      <xsl:otherwise><xsl:value-of select="$text"/></xsl:otherwise>
    </xsl:choose>
  </xsl:template>
</xsl:stylesheet>
