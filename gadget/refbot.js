/**
 * refbot on Wikidata item pages: beside each statement refbot checked, what it found — supported by a page (with the
 * sentence and the source), stated in an authority record, evidence against, nothing found — and a link to the
 * statement's card in refbot's review service, where a signed-in curator approves or rejects the reference.
 *
 * Install: copy this file to a page of your own (Special:MyPage/refbot.js) and add to Special:MyPage/common.js
 *
 *     window.refbotService = 'https://refbot.toolforge.org';  // the review service (this default if left out)
 *     importScript('User:' + mw.config.get('wgUserName') + '/refbot.js');
 *
 * It reads https://<service>/api/item/QID (no cookies sent) and changes nothing on the page but its own boxes, which
 * it builds as text: nothing a source page says can become markup or script here.
 */
(function () {
  'use strict';

  var WORDS = {
    supported: 'supported by a page',
    corroborated: 'corroborated by a record',
    contradicted: 'a source says otherwise',
    undecided: 'undecided: no page clearly supports or contradicts it',
    'not-found': 'no supporting source found',
    irretrievable: 'its sources could not be read',
    error: 'not checked (refbot error)'
  };
  var COLOURS = { supported: '#14866d', corroborated: '#14866d', contradicted: '#d33' };

  function service() {
    return String(window.refbotService || 'https://refbot.toolforge.org').replace(/\/+$/, '');
  }

  function entityId() {
    var config = window.mw && window.mw.config;
    if (!config || config.get('wgNamespaceNumber') !== 0) {
      return null;
    }
    var id = config.get('wbEntityId');
    return /^Q[1-9][0-9]*$/.test(id || '') ? id : null;
  }

  function web(url) {
    return /^https?:\/\//i.test(url || '') ? url : '';
  }

  function link(href, text) {
    var a = document.createElement('a');
    a.href = href;
    a.textContent = text;
    a.rel = 'noopener noreferrer';
    return a;
  }

  function box(finding, base) {
    var div = document.createElement('div');
    div.className = 'refbot-finding refbot-' + finding.outcome;
    div.setAttribute('data-outcome', finding.outcome);
    div.style.cssText = 'margin:.3em 0;padding:.2em .5em;font-size:90%;border-left:3px solid ' +
      (COLOURS[finding.outcome] || '#72777d') + ';background:#f8f9fa;';
    var head = document.createElement('strong');
    head.className = 'refbot-outcome';
    head.textContent = 'refbot: ' + (WORDS[finding.outcome] || finding.outcome);
    div.appendChild(head);
    if (finding.state && finding.state !== 'proposed') {
      div.appendChild(document.createTextNode(' (reference ' + finding.state + ')'));
    }
    if (finding.sentence) {
      var quote = document.createElement('q');
      quote.className = 'refbot-sentence';
      quote.textContent = finding.sentence;
      div.appendChild(document.createTextNode(' — '));
      div.appendChild(quote);
    }
    var source = finding.source && web(finding.source.url);
    if (source) {
      div.appendChild(document.createTextNode(' '));
      div.appendChild(link(source, finding.source.site || finding.source.title || source));
    }
    (finding.against || []).forEach(function (evidence) {
      var against = document.createElement('div');
      against.className = 'refbot-against';
      against.textContent = 'Evidence against: ' + evidence.why + ' (' + evidence.site + ')';
      div.appendChild(against);
    });
    if (finding.card && finding.card.indexOf(base + '/') === 0) {
      div.appendChild(document.createTextNode(' · '));
      var card = link(finding.card, 'review card');
      card.className = 'refbot-card';
      div.appendChild(card);
    }
    return div;
  }

  function show(data, base) {
    (data.statements || []).forEach(function (finding) {
      var found = document.getElementsByClassName('wikibase-statement-' + finding.guid);
      if (!found.length || found[0].querySelector('.refbot-finding')) {
        return;
      }
      var place = found[0].querySelector('.wikibase-statementview-mainsnak-container') || found[0];
      place.appendChild(box(finding, base));
    });
  }

  function run() {
    var id = entityId();
    if (!id || !window.fetch) {
      return;
    }
    var base = service();
    window.fetch(base + '/api/item/' + id, { credentials: 'omit' })
      .then(function (response) { return response.ok ? response.json() : { statements: [] }; })
      .then(function (data) { show(data, base); })
      .catch(function () { /* the service is unreachable: the page stays as it was */ });
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', run);
  } else {
    run();
  }
}());
